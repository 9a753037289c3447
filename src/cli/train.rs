//! `syotti datagen` and `syotti train`: making the evaluation network (see `train`).

use std::{fs::File, io::BufWriter, sync::Arc};

use clap::Args;

use super::EXIT_BAD_INPUT;
use crate::{
    search::nnue::{self, Base, Network},
    tablebase::Tablebases,
    train::{
        datagen::{generate, DatagenConfig},
        trainer::{train, Dataset, TrainConfig},
    },
};

#[derive(Debug, Args)]
pub struct DatagenArgs {
    /// Games to play.
    #[arg(long, default_value_t = 1000)]
    pub games: usize,
    /// Nodes searched for each move.
    #[arg(long, default_value_t = 5000)]
    pub nodes: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Seed of the random opening plies.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Share of the games played under the suicide convention (0 to 1).
    #[arg(long, default_value_t = 0.3)]
    pub suicide_share: f64,
    /// Fewest random plies at the start of a game.
    #[arg(long, default_value_t = 4)]
    pub min_random: usize,
    /// Most random plies at the start of a game.
    #[arg(long, default_value_t = 9)]
    pub max_random: usize,
    /// Syzygy tables: positions they cover end the game with their result.
    #[arg(long)]
    pub syzygy: Option<String>,
    /// Plies played on once the tables decide a game, writing the covered positions with the
    /// tables' scores (0: the game ends there).
    #[arg(long, default_value_t = 0)]
    pub table_plies: usize,
    /// The evaluation to play with: `embedded` (the network built in), `linear` (the hand-made
    /// evaluation alone) or a network file.
    #[arg(long, default_value = "embedded")]
    pub eval: String,
    /// Output file (FEN;score;result;rule lines).
    #[arg(long)]
    pub out: String,
}

pub fn run_datagen(args: &DatagenArgs) -> u8 {
    if !(0.0..=1.0).contains(&args.suicide_share) {
        eprintln!("error: --suicide-share must be between 0 and 1");
        return EXIT_BAD_INPUT;
    }
    if args.min_random > args.max_random || args.threads == 0 || args.threads > 1024 {
        eprintln!("error: need --min-random <= --max-random and 1 to 1024 --threads");
        return EXIT_BAD_INPUT;
    }
    let tablebases = match args.syzygy.as_deref().map(Tablebases::open).transpose() {
        Ok(tb) => tb,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_BAD_INPUT;
        }
    };
    let network = match args.eval.as_str() {
        "embedded" => match nnue::embedded() {
            Some(n) => Some(n),
            None => {
                eprintln!("error: this build has no usable embedded network");
                return EXIT_BAD_INPUT;
            }
        },
        "linear" => None,
        path => match Network::load(path) {
            Ok(n) => Some(Arc::new(n)),
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_BAD_INPUT;
            }
        },
    };
    let file = match File::create(&args.out) {
        Ok(f) => BufWriter::new(f),
        Err(e) => {
            eprintln!("error: {}: {e}", args.out);
            return EXIT_BAD_INPUT;
        }
    };
    let config = DatagenConfig {
        games: args.games,
        nodes: args.nodes.max(1),
        threads: args.threads,
        seed: args.seed,
        suicide_share: args.suicide_share,
        random_plies: (args.min_random, args.max_random),
        max_plies: 600,
        table_plies: args.table_plies,
        network,
    };
    match generate(&config, tablebases.as_ref(), file, 200) {
        Ok(stats) => {
            eprintln!(
                "{} games, {} positions written to {} (White {} Black {} draws {})",
                stats.games,
                stats.positions,
                args.out,
                stats.white_wins,
                stats.black_wins,
                stats.draws
            );
            0
        }
        Err(e) => {
            eprintln!("error: {}: {e}", args.out);
            1
        }
    }
}

#[derive(Debug, Args)]
pub struct TrainArgs {
    /// Training data files (FEN;score;result;rule lines from `syotti datagen`).
    #[arg(long = "data", required = true)]
    pub data: Vec<String>,
    /// Where to write the network.
    #[arg(long)]
    pub out: String,
    #[arg(long, default_value_t = 20)]
    pub epochs: usize,
    /// Positions per mini-batch.
    #[arg(long, default_value_t = 16384)]
    pub batch: usize,
    /// Adam's learning rate (dropped at 60% and 85% of the epochs).
    #[arg(long, default_value_t = 0.001)]
    pub lr: f32,
    /// Weight of the search score in the target; the rest is the game's result.
    #[arg(long, default_value_t = 0.7)]
    pub lambda: f32,
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Seed of the initial weights and of the shuffling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Share of the positions held out to measure the validation loss.
    #[arg(long, default_value_t = 0.02)]
    pub validation: f64,
    /// Train on top of the hand-made linear evaluation (`linear`: the network learns a
    /// correction to it) or alone (`none`).
    #[arg(long, default_value = "none", value_parser = ["none", "linear"])]
    pub base: String,
    /// Start from this network (a file, or `embedded` for the network built in)
    /// instead of random weights: fine-tuning. It must have been trained on the same `--base`.
    #[arg(long)]
    pub init: Option<String>,
    /// Show each training position as itself or mirrored left to right (a coin toss per
    /// position and epoch): antichess has no castling, so the mirror is a true position with
    /// the same labels.
    #[arg(long)]
    pub mirror: bool,
    /// Keep `--init`'s first layer exactly and train only the output layers (a new head over
    /// features another network learnt). Needs `--init`.
    #[arg(long, requires = "init")]
    pub freeze_first_layer: bool,
}

pub fn run_train(args: &TrainArgs) -> u8 {
    if args.epochs == 0
        || args.batch == 0
        || args.threads == 0
        || args.threads > 1024
        || !(0.0..=1.0).contains(&args.lambda)
        || !(0.0..0.5).contains(&args.validation)
        || !(args.lr > 0.0 && args.lr < 1.0)
    {
        eprintln!(
            "error: need --epochs, --batch and 1 to 1024 --threads above 0, --lambda in [0, 1], \
             --validation in [0, 0.5), --lr in (0, 1)"
        );
        return EXIT_BAD_INPUT;
    }
    let base = if args.base == "linear" {
        Base::Linear
    } else {
        Base::None
    };
    let load = |path: &str| match path {
        "embedded" => nnue::embedded()
            .map(|net| net.as_ref().clone())
            .ok_or_else(|| "this build has no embedded network".to_string()),
        file => Network::load(file).map_err(|e| e.to_string()),
    };
    let init = match args.init.as_deref().map(load).transpose() {
        Ok(Some(net)) if net.base != base => {
            eprintln!(
                "error: --init {}: its base is {:?}, not {:?} (--base)",
                args.init.as_deref().unwrap_or_default(),
                net.base,
                base
            );
            return EXIT_BAD_INPUT;
        }
        Ok(net) => net,
        Err(e) => {
            eprintln!("error: --init: {e}");
            return EXIT_BAD_INPUT;
        }
    };
    let mut readers = Vec::new();
    for path in &args.data {
        match File::open(path) {
            Ok(f) => readers.push(std::io::BufReader::new(f)),
            Err(e) => {
                eprintln!("error: {path}: {e}");
                return EXIT_BAD_INPUT;
            }
        }
    }
    let (data, skipped) = match Dataset::read(readers) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: reading the data: {e}");
            return EXIT_BAD_INPUT;
        }
    };
    eprintln!(
        "{} positions ({skipped} malformed lines skipped)",
        data.len()
    );
    if data.len() < 10 {
        eprintln!("error: too few positions to train on");
        return EXIT_BAD_INPUT;
    }
    let config = TrainConfig {
        epochs: args.epochs,
        batch: args.batch,
        learning_rate: args.lr,
        lambda: args.lambda,
        threads: args.threads,
        seed: args.seed,
        validation: args.validation,
        base,
        init,
        mirror: args.mirror,
        freeze_first_layer: args.freeze_first_layer,
        ..TrainConfig::default()
    };
    let trained = train(&data, &config, &mut |r| {
        eprintln!(
            "epoch {:3}  train {:.6}  validation {:.6}  ({:.1} s)",
            r.epoch, r.train_loss, r.validation_loss, r.seconds
        );
    });
    eprintln!(
        "K = {:.1}; quantisation error {:.2} cp on the validation positions; the linear \
         evaluation's validation loss {:.6}",
        trained.scale_k, trained.quantisation_error, trained.linear_validation_loss
    );
    match std::fs::write(&args.out, trained.network.to_bytes()) {
        Ok(()) => {
            eprintln!("network written to {}", args.out);
            0
        }
        Err(e) => {
            eprintln!("error: {}: {e}", args.out);
            1
        }
    }
}
