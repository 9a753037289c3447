//! The command line: subcommands analyse, prove, verify, count and benchmark. (`syotti` with no
//! subcommand is the engine: `main` hands it to `protocol`.)
//!
//! Errors from user input end in a clear message on stderr and a non-zero exit status (2), never a
//! panic.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod analyse;
mod bench;
pub mod book;
mod openings;
mod perft;
mod prove;
mod serve;
mod snapshot;
mod store;
mod train;

use clap::{Parser, Subcommand};

use crate::rules::{StalemateRule, Variant};

/// Exit status for bad input (bad FEN, bad arguments, illegal move).
pub const EXIT_BAD_INPUT: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "syotti",
    version,
    about = "Syotti, an antichess (losing chess) engine",
    long_about = "Syotti plays antichess (losing chess, suicide chess, giveaway): captures are \
                  compulsory and you win by losing all your pieces.\n\nRun without arguments to \
                  start the engine: UCI (Cute Chess, cutechess-cli, lichess-bot) or XBoard/CECP \
                  (XBoard, WinBoard, FICS bots), whichever the first command asks for.",
    after_help = "Examples:\n  syotti                      start the engine (UCI or XBoard)\n  syotti --xboard             start the engine speaking XBoard\n  syotti analyse --fen 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - - 0 1'\n  syotti analyse --pgn game.pgn --out annotated.pgn\n  syotti prove --moves e2e4 --out e4.proof\n  syotti verify e4.proof\n  syotti perft 6\n  syotti bench\n\nStalemate conventions (--variant, --stalemate; UCI_Variant, Stalemate): antichess = the\nstalemated side wins (lichess, default); suicide = fewer pieces wins (FICS); draw.\nSee README.md for the UCI options, the JSON output and the proof file format."
)]
pub struct Cli {
    /// Speak XBoard/CECP from the start (without it the first command decides: `xboard` or
    /// `uci`).
    #[arg(long)]
    pub xboard: bool,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Which rules to play by: the variant, optionally with another stalemate convention.
#[derive(Debug, Clone, clap::Args)]
pub struct RulesArgs {
    /// Variant: antichess (stalemated side wins) or suicide (fewer pieces wins on stalemate).
    #[arg(long, default_value = "antichess")]
    pub variant: Variant,
    /// Stalemate convention, overriding the variant's: stalemated-side-wins, draw, fewer-pieces-wins.
    #[arg(long)]
    pub stalemate: Option<StalemateRule>,
}

impl RulesArgs {
    pub fn rule(&self) -> StalemateRule {
        self.stalemate.unwrap_or(self.variant.stalemate_rule())
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count the leaf nodes of the legal move tree (move generator test and speed check).
    #[command(
        after_help = "Example:\n  syotti perft 6\n  syotti perft 2 --fen '8/8/p7/8/8/8/7P/8 w - - 0 1' --divide"
    )]
    Perft(perft::PerftArgs),
    /// Search fixed positions to a fixed depth and print `N nodes M nps` (the build's fingerprint).
    #[command(after_help = "Example:\n  syotti bench\n  syotti bench 11")]
    Bench(bench::BenchArgs),
    /// Prove a forced win (or loss) with proof-number search; optionally write the proof tree.
    #[command(
        after_help = "Examples:\n  syotti prove --fen '8/8/p7/8/8/8/7P/8 w - - 0 1'\n  syotti prove --moves e2e4 --out e4.proof\n  syotti prove --moves b1c3 --time 120 --memory 3500 --json\n  syotti prove --store h4.db --moves h2h4 --threads 2 --memory 1500 --out h4.proof\n  syotti prove --store h4.db --status\n  syotti prove --store postgres://user@host/proofs --worker\n\nWith --store the proof is kept in a SQLite file or a PostgreSQL database: interrupt it any\nway and the same command resumes; see README.md."
    )]
    Prove(prove::ProveArgs),
    /// Analyse positions (FEN, EPD) or annotate games (PGN), for people or as JSON.
    #[command(
        after_help = "Examples:\n  syotti analyse --fen 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - - 0 1'\n  syotti analyse --epd positions.epd --depth 12 --json\n  syotti analyse --pgn game.pgn --time 1 --out annotated.pgn\n  cat game.pgn | syotti analyse --pgn - --variant suicide"
    )]
    Analyse(analyse::AnalyseArgs),
    /// Re-check a proof file from scratch with the rules alone.
    #[command(after_help = "Example:\n  syotti verify e4.proof")]
    Verify(prove::VerifyArgs),
    /// The book of proofs: build it from proofs, probe it, export it (Polyglot, PGN), verify it.
    Book(book::BookArgs),
    /// Play self-play games and write their quiet positions as training data for the network.
    #[command(
        after_help = "Example:\n  syotti datagen --games 20000 --nodes 5000 --threads 2 --syzygy tables --out data.txt"
    )]
    Datagen(train::DatagenArgs),
    /// Train the evaluation network on datagen's positions and write it (see README.md).
    #[command(
        after_help = "Example:\n  syotti train --data data.txt --epochs 20 --threads 2 --out syotti.nnue"
    )]
    Train(train::TrainArgs),
    /// Write balanced opening positions for matches (random plies, kept when a search finds
    /// them near even), as EPD.
    #[command(
        after_help = "Example:\n  syotti openings --count 300 --exclude ../shared/openings/dev.epd --seed 2026 --out openings/untuned.epd"
    )]
    Openings(openings::OpeningsArgs),
    /// Serve the explorer: a board page with the proofs, live analysis, PGN import, an evaluation
    /// graph and play at a chosen level, and its JSON API (`GET /api/probe?fen=FEN`, ...).
    #[command(
        after_help = "Example:\n  syotti serve --port 8080 --open\n  curl 'http://127.0.0.1:8080/api/probe?fen=rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR%20b%20-%20-%200%201'"
    )]
    Serve(serve::ServeArgs),
}

/// A file to write a command's output to, buffered; the error says which file and why.
fn create_output(path: &std::path::Path) -> Result<Box<dyn std::io::Write>, String> {
    std::fs::File::create(path)
        .map(|f| Box::new(std::io::BufWriter::new(f)) as Box<dyn std::io::Write>)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Runs a subcommand; returns the process exit status.
pub fn run(command: Command) -> u8 {
    match command {
        Command::Perft(args) => perft::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Analyse(args) => analyse::run(&args),
        Command::Prove(args) => prove::run_prove(&args),
        Command::Verify(args) => prove::run_verify(&args),
        Command::Book(args) => book::run(&args),
        Command::Datagen(args) => train::run_datagen(&args),
        Command::Train(args) => train::run_train(&args),
        Command::Openings(args) => openings::run(&args),
        Command::Serve(args) => serve::run(&args),
    }
}

/// A JSON string literal.
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
