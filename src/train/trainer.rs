//! The network's trainer: mini-batch Adam in `f32` on all cores, then quantisation.
//!
//! The float network is the integer one of `search::nnue` before rounding: neurons
//! `a = b + Σ W[f]` over the active inputs of a perspective, activation `clamp(a, 0, 1)²`, output
//! `o = Σ act(a_us)·w_us + Σ act(a_them)·w_them + c` for the position's convention head, and the
//! evaluation `o × SCALE` centipawns.
//!
//! The loss is the squared error between `sigmoid(eval / K)` and a target that blends the
//! search's score, `sigmoid(score / K)`, with the game's result (`lambda` of the first).
//! K is fitted first to the data: the scale at which the search's scores best predict the
//! results. Weights are clipped so that the quantised network cannot overflow (|w| ≤ 1.98), and
//! a share of the data is held out to report the loss on positions the trainer has not seen.
//! With `mirror`, each training position is shown as it is or mirrored left to right (a fixed
//! coin toss per position and epoch): without castling that is a true position with the same
//! labels, and the suicide network of round 6 learnt from it (`nets/README.md`).

use std::io::BufRead;

use shakmaty::{Color, Position};

use super::{data::parse_line, Rng};
use crate::search::{
    eval::{evaluate_with, EvalParams},
    nnue::{self, Base, Network, HIDDEN, INPUTS, OUTPUTS, QA, QB, SCALE},
};

/// Parts of a batch whose gradients are summed separately (and so the most threads used).
const SHARDS: usize = 8;

/// Largest weight the quantised network holds without overflow: 32 first-layer weights and a
/// bias stay within `i16` at QA, and an output weight times QA² within `i32` / 8.
const CLIP: f32 = 1.98;

/// Training settings.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    pub epochs: usize,
    pub batch: usize,
    pub learning_rate: f32,
    /// The learning rate is multiplied by `lr_drop` at each of these fractions of the epochs.
    pub lr_drop: f32,
    /// Weight of the search score in the target (the rest is the game's result).
    pub lambda: f32,
    pub threads: usize,
    pub seed: u64,
    /// Share of the positions held out for validation.
    pub validation: f64,
    /// Scores beyond this (mates, tablebase wins) are clamped to it in the target.
    pub score_clamp: i32,
    /// What the network is trained on top of.
    pub base: Base,
    /// Start from this network's weights (fine-tuning) instead of random ones; its base must be
    /// `base`.
    pub init: Option<Network>,
    /// Show each training position as itself or mirrored left to right (files a and h swapped),
    /// a coin toss per position and epoch. Without castling antichess is symmetric under that
    /// mirror (the same moves, the same result, the same linear evaluation), so the mirrored
    /// position is a true one with the same labels: twice the distinct positions for free.
    pub mirror: bool,
    /// Keep the first layer (weights and biases) of `init` as it is and train only the outputs:
    /// a new head over features another network learnt (e.g. the suicide outputs over the
    /// antichess network's first layer, so that both conventions can share one first layer).
    pub freeze_first_layer: bool,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            epochs: 20,
            batch: 16384,
            learning_rate: 0.001,
            lr_drop: 0.3,
            lambda: 0.7,
            threads: 2,
            seed: 1,
            validation: 0.02,
            score_clamp: 3000,
            base: Base::None,
            init: None,
            mirror: false,
            freeze_first_layer: false,
        }
    }
}

/// The positions, compactly: White's-view inputs of each position in one list.
#[derive(Default)]
pub struct Dataset {
    features: Vec<u16>,
    /// Start of each position's inputs in `features` (one more entry than positions).
    offsets: Vec<u32>,
    /// Side to move is White.
    white: Vec<bool>,
    head: Vec<u8>,
    score: Vec<i32>,
    /// Result for the side to move.
    result: Vec<f32>,
    /// The linear evaluation (the base a network may be trained on), centipawns.
    linear: Vec<i16>,
}

impl Dataset {
    pub fn len(&self) -> usize {
        self.white.len()
    }

    pub fn is_empty(&self) -> bool {
        self.white.is_empty()
    }

    fn push(&mut self, sample: &super::data::Sample) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        for (sq, piece) in sample.pos.board().iter() {
            self.features
                .push(nnue::feature(Color::White, piece, sq) as u16);
        }
        self.offsets.push(self.features.len() as u32);
        self.white.push(sample.pos.turn() == Color::White);
        self.head.push(nnue::head(sample.rule) as u8);
        self.score.push(sample.score);
        self.result.push(sample.result);
        let linear = evaluate_with(&sample.pos, EvalParams::for_rule(sample.rule));
        self.linear
            .push(linear.clamp(-i16::MAX as i32, i16::MAX as i32) as i16);
    }

    /// Reads data files; returns the dataset and the number of lines skipped as malformed.
    ///
    /// The lines are sorted first, so the dataset does not depend on their order: `datagen` on
    /// several threads writes the same games in whatever order they finish, and the same lines
    /// in any order train the same network.
    pub fn read<R: BufRead>(readers: Vec<R>) -> std::io::Result<(Dataset, usize)> {
        let mut lines = Vec::new();
        for reader in readers {
            for line in reader.lines() {
                let line = line?;
                if !line.trim().is_empty() {
                    lines.push(line);
                }
            }
        }
        lines.sort_unstable();
        let mut data = Dataset::default();
        let mut skipped = 0;
        for (i, line) in lines.iter().enumerate() {
            match parse_line(line, i + 1) {
                Ok(sample) => data.push(&sample),
                Err(_) => skipped += 1,
            }
        }
        Ok((data, skipped))
    }

    fn inputs(&self, i: usize) -> &[u16] {
        &self.features[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

/// White's-view input seen from Black.
#[inline]
fn flip(f: u16) -> u16 {
    let f = f ^ 56;
    if f < 384 {
        f + 384
    } else {
        f - 384
    }
}

/// An input seen in the board mirrored left to right: the square's file (its low three bits)
/// turned round, nothing else.
#[inline]
fn mirror_file(f: u16) -> u16 {
    f ^ 7
}

/// Whether position `i` is shown mirrored in `epoch`: a fixed coin toss of the two (a
/// SplitMix64 finaliser), so the choice does not depend on threads or batch order.
fn mirrored(i: usize, epoch: usize) -> bool {
    let mut z = (i as u64) ^ ((epoch as u64) << 40) ^ 0x9e37_79b9_7f4a_7c15;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) & 1 == 1
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The float network's parameters (also the shape of its gradients and Adam's moments).
#[derive(Clone)]
struct Params {
    ft: Vec<f32>,
    ft_bias: Vec<f32>,
    out: Vec<f32>,
    out_bias: Vec<f32>,
}

/// What a training step asks of `Params::forward_backward` beyond the output.
struct Backward<'a> {
    /// Where the gradient is added.
    grad: &'a mut Params,
    /// The loss's derivative, a function of the output.
    dloss: &'a dyn Fn(f32) -> f32,
    /// The first layer is not trained: its gradient, which would be thrown away, is skipped.
    first_layer_frozen: bool,
}

/// A random weight, uniform in `(-limit, limit)`.
fn uniform(rng: &mut Rng, limit: f64) -> f32 {
    ((rng.unit() * 2.0 - 1.0) * limit) as f32
}

/// A random first-layer weight, as a network starts with (and a revived neuron).
fn first_layer_weight(rng: &mut Rng) -> f32 {
    uniform(rng, 1.0 / (INPUTS as f64).sqrt())
}

impl Params {
    fn zeros() -> Params {
        Params {
            ft: vec![0.0; INPUTS * HIDDEN],
            ft_bias: vec![0.0; HIDDEN],
            out: vec![0.0; OUTPUTS * 2 * HIDDEN],
            out_bias: vec![0.0; OUTPUTS],
        }
    }

    fn random(rng: &mut Rng) -> Params {
        let mut p = Params::zeros();
        for w in &mut p.ft {
            *w = first_layer_weight(rng);
        }
        for w in &mut p.out {
            *w = uniform(rng, 1.0 / (2.0 * HIDDEN as f64).sqrt());
        }
        p
    }

    /// Gives every dead neuron (no first-layer weight, bias or output weight: what a narrower
    /// network read into this build's width has) random first-layer weights, as `random` would.
    /// Its output weights stay zero, so the network still evaluates as before; without this
    /// such a neuron would never move (its gradients are zero both ways).
    fn revive_dead_neurons(&mut self, rng: &mut Rng) {
        for j in 0..HIDDEN {
            let dead = self.ft_bias[j] == 0.0
                && self.ft.iter().skip(j).step_by(HIDDEN).all(|&w| w == 0.0)
                && self.out.iter().skip(j).step_by(HIDDEN).all(|&w| w == 0.0);
            if dead {
                for w in self.ft.iter_mut().skip(j).step_by(HIDDEN) {
                    *w = first_layer_weight(rng);
                }
            }
        }
    }

    /// The float weights a quantised network was rounded from (to the rounding's precision).
    fn from_network(net: &Network) -> Params {
        let qa = QA as f32;
        let qb = QB as f32;
        Params {
            ft: net.ft_weights.iter().map(|&w| f32::from(w) / qa).collect(),
            ft_bias: net.ft_bias.iter().map(|&w| f32::from(w) / qa).collect(),
            out: net.out_weights.iter().map(|&w| f32::from(w) / qb).collect(),
            out_bias: net.out_bias.iter().map(|&b| b as f32 / (qa * qb)).collect(),
        }
    }

    fn slices_mut(&mut self) -> [&mut [f32]; 4] {
        [
            &mut self.ft,
            &mut self.ft_bias,
            &mut self.out,
            &mut self.out_bias,
        ]
    }

    fn clear(&mut self) {
        for s in self.slices_mut() {
            s.fill(0.0);
        }
    }

    fn add(&mut self, other: &Params) {
        let theirs = [&other.ft, &other.ft_bias, &other.out, &other.out_bias];
        for (mine, theirs) in self.slices_mut().into_iter().zip(theirs) {
            for (a, b) in mine.iter_mut().zip(theirs.iter()) {
                *a += b;
            }
        }
    }

    /// The output (in units of `SCALE` centipawns) of position `i` (mirrored left to right
    /// with `mirror`); with `backward`, also adds the gradient of the loss into its `grad`.
    fn forward_backward(
        &self,
        data: &Dataset,
        i: usize,
        mirror: bool,
        base: Base,
        hidden: &mut [f32; 2 * HIDDEN],
        backward: Option<Backward>,
    ) -> f32 {
        let inputs = data.inputs(i);
        let (us, them) = hidden.split_at_mut(HIDDEN);
        us.copy_from_slice(&self.ft_bias);
        them.copy_from_slice(&self.ft_bias);
        let white = data.white[i];
        let view = |f: u16| if mirror { mirror_file(f) } else { f };
        for &f in inputs {
            let f = view(f);
            let (mine, theirs) = if white { (f, flip(f)) } else { (flip(f), f) };
            let row = &self.ft[mine as usize * HIDDEN..(mine as usize + 1) * HIDDEN];
            for (a, w) in us.iter_mut().zip(row) {
                *a += w;
            }
            let row = &self.ft[theirs as usize * HIDDEN..(theirs as usize + 1) * HIDDEN];
            for (a, w) in them.iter_mut().zip(row) {
                *a += w;
            }
        }
        let layer = nnue::head_output(data.head[i] as usize, inputs.len() as u32);
        let w = &self.out[layer * 2 * HIDDEN..(layer + 1) * 2 * HIDDEN];
        let mut out = self.out_bias[layer];
        if base == Base::Linear {
            out += f32::from(data.linear[i]) / SCALE as f32;
        }
        for (a, w) in hidden.iter().zip(w) {
            let c = a.clamp(0.0, 1.0);
            out += c * c * w;
        }
        let Some(Backward {
            grad,
            dloss,
            first_layer_frozen,
        }) = backward
        else {
            return out;
        };
        let g = dloss(out);
        grad.out_bias[layer] += g;
        let gw = &mut grad.out[layer * 2 * HIDDEN..(layer + 1) * 2 * HIDDEN];
        // Reuse `hidden` for the gradient at the neurons.
        for ((a, w), gw) in hidden.iter_mut().zip(w).zip(gw.iter_mut()) {
            let c = a.clamp(0.0, 1.0);
            *gw += g * c * c;
            *a = if *a > 0.0 && *a < 1.0 {
                g * w * 2.0 * c
            } else {
                0.0
            };
        }
        if first_layer_frozen {
            return out;
        }
        let (gus, gthem) = hidden.split_at(HIDDEN);
        for (b, (x, y)) in grad.ft_bias.iter_mut().zip(gus.iter().zip(gthem)) {
            *b += x + y;
        }
        for &f in inputs {
            let f = view(f);
            let (mine, theirs) = if white { (f, flip(f)) } else { (flip(f), f) };
            let row = &mut grad.ft[mine as usize * HIDDEN..(mine as usize + 1) * HIDDEN];
            for (r, x) in row.iter_mut().zip(gus) {
                *r += x;
            }
            let row = &mut grad.ft[theirs as usize * HIDDEN..(theirs as usize + 1) * HIDDEN];
            for (r, x) in row.iter_mut().zip(gthem) {
                *r += x;
            }
        }
        out
    }

    fn quantise(&self, base: Base) -> Network {
        let q16 = |x: f32, scale: i32| (x * scale as f32).round().clamp(-32767.0, 32767.0) as i16;
        Network {
            base,
            ft_weights: self.ft.iter().map(|&w| q16(w, QA)).collect(),
            ft_bias: self.ft_bias.iter().map(|&w| q16(w, QA)).collect(),
            out_weights: self.out.iter().map(|&w| q16(w, QB)).collect(),
            out_bias: self
                .out_bias
                .iter()
                .map(|&b| (b * (QA * QB) as f32).round() as i32)
                .collect(),
        }
    }
}

/// The scale K at which `sigmoid(score / K)` best predicts the results (golden-section search).
pub fn fit_scale(data: &Dataset, clamp: i32) -> f32 {
    let error = |k: f32| {
        let mut sum = 0.0f64;
        let mut n = 0usize;
        for i in 0..data.len() {
            let s = data.score[i];
            if s.abs() >= clamp {
                continue;
            }
            let d = sigmoid(s as f32 / k) - data.result[i];
            sum += f64::from(d * d);
            n += 1;
        }
        sum / n.max(1) as f64
    };
    let (mut lo, mut hi) = (20.0f32, 3000.0f32);
    let ratio = 0.618_034f32;
    for _ in 0..40 {
        let a = hi - ratio * (hi - lo);
        let b = lo + ratio * (hi - lo);
        if error(a) < error(b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// What a training run reports after each epoch.
#[derive(Clone, Copy, Debug)]
pub struct EpochReport {
    pub epoch: usize,
    pub train_loss: f64,
    pub validation_loss: f64,
    pub seconds: f64,
}

/// The result of a training run.
pub struct Trained {
    pub network: Network,
    pub scale_k: f32,
    pub epochs: Vec<EpochReport>,
    /// Mean absolute difference, in centipawns, between the float and the quantised network on
    /// the validation positions.
    pub quantisation_error: f64,
    /// The validation loss of the hand-made linear evaluation alone, for comparison.
    pub linear_validation_loss: f64,
}

/// Trains a network on `data`; `report` is called after each epoch.
pub fn train(
    data: &Dataset,
    config: &TrainConfig,
    report: &mut dyn FnMut(&EpochReport),
) -> Trained {
    let mut rng = Rng::new(config.seed);
    let k = fit_scale(data, config.score_clamp);
    let mut order: Vec<usize> = (0..data.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    let held = ((data.len() as f64 * config.validation) as usize).min(data.len() / 2);
    let (validation, training) = order.split_at(held);
    let mut training = training.to_vec();
    let target = |i: usize| {
        let s = data.score[i].clamp(-config.score_clamp, config.score_clamp) as f32;
        config.lambda * sigmoid(s / k) + (1.0 - config.lambda) * data.result[i]
    };
    let mut params = match &config.init {
        Some(net) => {
            let mut p = Params::from_network(net);
            // A frozen first layer stays exactly the given one, dead neurons and all.
            if !config.freeze_first_layer {
                p.revive_dead_neurons(&mut rng);
            }
            p
        }
        None => Params::random(&mut rng),
    };
    let mut m = Params::zeros();
    let mut v = Params::zeros();
    let (beta1, beta2, eps) = (0.9f32, 0.999f32, 1e-8f32);
    let threads = config.threads.clamp(1, SHARDS);
    let mut grads: Vec<Params> = (0..SHARDS).map(|_| Params::zeros()).collect();
    let mut step = 0i32;
    let mut epochs = Vec::new();
    let scale = SCALE as f32 / k;
    let batch = config.batch.max(1);
    for epoch in 1..=config.epochs {
        let start = std::time::Instant::now();
        for i in (1..training.len()).rev() {
            training.swap(i, rng.below(i + 1));
        }
        // Learning rate: dropped at 60% and 85% of the epochs.
        let mut lr = config.learning_rate;
        for mark in [0.6, 0.85] {
            if epoch as f64 > mark * config.epochs as f64 {
                lr *= config.lr_drop;
            }
        }
        let mut loss_sum = 0.0f64;
        for chunk in training.chunks(batch) {
            // The batch is cut into SHARDS parts whatever the threads, each with its gradient,
            // summed in order: the same sums on any number of threads.
            let shard_len = chunk.len().div_ceil(SHARDS).max(1);
            let shards: Vec<&[usize]> = chunk.chunks(shard_len).collect();
            let per_thread = SHARDS.div_ceil(threads);
            let losses: Vec<f64> = std::thread::scope(|scope| {
                let handles: Vec<_> = grads
                    .chunks_mut(per_thread)
                    .zip(shards.chunks(per_thread))
                    .map(|(grads, parts)| {
                        let params = &params;
                        let target = &target;
                        scope.spawn(move || {
                            let mut hidden = [0.0f32; 2 * HIDDEN];
                            let mut losses = Vec::new();
                            for (grad, part) in grads.iter_mut().zip(parts) {
                                grad.clear();
                                let mut loss = 0.0f64;
                                for &i in part.iter() {
                                    let t = target(i);
                                    let dloss = |out: f32| {
                                        let p = sigmoid(out * scale);
                                        2.0 * (p - t) * p * (1.0 - p) * scale
                                    };
                                    let mirror = config.mirror && mirrored(i, epoch);
                                    let out = params.forward_backward(
                                        data,
                                        i,
                                        mirror,
                                        config.base,
                                        &mut hidden,
                                        Some(Backward {
                                            grad,
                                            dloss: &dloss,
                                            first_layer_frozen: config.freeze_first_layer,
                                        }),
                                    );
                                    let p = sigmoid(out * scale);
                                    loss += f64::from((p - t) * (p - t));
                                }
                                losses.push(loss);
                            }
                            losses
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().unwrap_or_default())
                    .collect()
            });
            // A short last batch has fewer shards: only theirs hold this batch's gradients.
            let used = shards.len();
            loss_sum += losses.iter().sum::<f64>();
            let (first, rest) = grads.split_at_mut(1);
            for g in rest[..used - 1].iter() {
                first[0].add(g);
            }
            step += 1;
            let correction1 = 1.0 - beta1.powi(step);
            let correction2 = 1.0 - beta2.powi(step);
            let n = chunk.len() as f32;
            let grad = &first[0];
            let grad_slices = [&grad.ft, &grad.ft_bias, &grad.out, &grad.out_bias];
            // The first two slices are the first layer's weights and biases.
            let frozen = if config.freeze_first_layer { 2 } else { 0 };
            for (((p, m), v), g) in params
                .slices_mut()
                .into_iter()
                .zip(m.slices_mut())
                .zip(v.slices_mut())
                .zip(grad_slices)
                .skip(frozen)
            {
                for (((p, m), v), &g) in p
                    .iter_mut()
                    .zip(m.iter_mut())
                    .zip(v.iter_mut())
                    .zip(g.iter())
                {
                    let g = g / n;
                    *m = beta1 * *m + (1.0 - beta1) * g;
                    *v = beta2 * *v + (1.0 - beta2) * g * g;
                    let update = lr * (*m / correction1) / ((*v / correction2).sqrt() + eps);
                    *p = (*p - update).clamp(-CLIP, CLIP);
                }
            }
        }
        let mut hidden = [0.0f32; 2 * HIDDEN];
        let validation_loss = validation
            .iter()
            .map(|&i| {
                let p = sigmoid(
                    params.forward_backward(data, i, false, config.base, &mut hidden, None) * scale,
                );
                f64::from((p - target(i)) * (p - target(i)))
            })
            .sum::<f64>()
            / validation.len().max(1) as f64;
        let r = EpochReport {
            epoch,
            train_loss: loss_sum / training.len().max(1) as f64,
            validation_loss,
            seconds: start.elapsed().as_secs_f64(),
        };
        report(&r);
        epochs.push(r);
    }
    let network = params.quantise(config.base);
    let mut hidden = [0.0f32; 2 * HIDDEN];
    let quantisation_error = validation
        .iter()
        .map(|&i| {
            let float = params.forward_backward(data, i, false, config.base, &mut hidden, None)
                * SCALE as f32;
            let (board, turn, rule) = data.board(i);
            let int = network.evaluate_board(&board, turn, rule)
                + if config.base == Base::Linear {
                    i32::from(data.linear[i])
                } else {
                    0
                };
            f64::from((float - int as f32).abs())
        })
        .sum::<f64>()
        / validation.len().max(1) as f64;
    let linear_validation_loss = validation
        .iter()
        .map(|&i| {
            let p = sigmoid(f32::from(data.linear[i]) / k);
            f64::from((p - target(i)) * (p - target(i)))
        })
        .sum::<f64>()
        / validation.len().max(1) as f64;
    Trained {
        network,
        scale_k: k,
        epochs,
        quantisation_error,
        linear_validation_loss,
    }
}

impl Dataset {
    /// Position `i` as a board, side to move and a convention of its head.
    fn board(&self, i: usize) -> (shakmaty::Board, Color, crate::rules::StalemateRule) {
        let mut board = shakmaty::Board::empty();
        for &f in self.inputs(i) {
            let f = f as usize;
            let color = if f < 384 { Color::White } else { Color::Black };
            let role = shakmaty::Role::ALL[(f % 384) / 64];
            let sq = shakmaty::Square::new((f % 64) as u32);
            board.set_piece_at(sq, shakmaty::Piece { color, role });
        }
        let turn = if self.white[i] {
            Color::White
        } else {
            Color::Black
        };
        let rule = if self.head[i] == 1 {
            crate::rules::StalemateRule::FewerPiecesWins
        } else {
            crate::rules::StalemateRule::StalematedSideWins
        };
        (board, turn, rule)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{parse_fen, StalemateRule};
    use crate::train::data::format_line;

    #[test]
    fn flipping_an_input_is_seeing_it_from_black() {
        let piece = shakmaty::Piece {
            color: Color::White,
            role: shakmaty::Role::Knight,
        };
        let sq = shakmaty::Square::G1;
        let white = nnue::feature(Color::White, piece, sq) as u16;
        assert_eq!(flip(white) as usize, nnue::feature(Color::Black, piece, sq));
        assert_eq!(flip(flip(white)), white);
    }

    /// The mirror the trainer uses is a true symmetry: an input mirrored is the input of the
    /// board mirrored left to right, and the linear evaluation (the base the network corrects)
    /// and the legal moves' count are unchanged by it, under every convention.
    #[test]
    fn mirroring_left_to_right_is_a_symmetry() {
        use crate::search::eval::{evaluate_with, EvalParams};
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
            "r1bqk2r/ppp2ppp/2n5/3p4/1b6/5N2/PPP1PPPP/RN1QKB1R b - - 0 1",
            "8/8/p7/8/8/8/7P/8 w - - 0 1",
            "6k1/5p2/8/3B4/8/8/1P6/N7 w - - 0 1",
        ];
        for fen in fens {
            let pos = parse_fen(fen).expect("valid");
            let mut board = pos.board().clone();
            board.flip_horizontal();
            let setup = shakmaty::Setup {
                board,
                turn: pos.turn(),
                ..shakmaty::Setup::empty()
            };
            let mirrored_pos: shakmaty::variant::Antichess = setup
                .position(shakmaty::CastlingMode::Standard)
                .expect("a mirrored legal position is legal");
            let mut inputs: Vec<u16> = pos
                .board()
                .iter()
                .map(|(sq, p)| mirror_file(nnue::feature(Color::White, p, sq) as u16))
                .collect();
            let mut expected: Vec<u16> = mirrored_pos
                .board()
                .iter()
                .map(|(sq, p)| nnue::feature(Color::White, p, sq) as u16)
                .collect();
            inputs.sort_unstable();
            expected.sort_unstable();
            assert_eq!(inputs, expected, "{fen}");
            assert_eq!(pos.legal_moves().len(), mirrored_pos.legal_moves().len());
            for rule in [
                StalemateRule::StalematedSideWins,
                StalemateRule::FewerPiecesWins,
                StalemateRule::Draw,
            ] {
                let params = EvalParams::for_rule(rule);
                assert_eq!(
                    evaluate_with(&pos, params),
                    evaluate_with(&mirrored_pos, params),
                    "{fen}"
                );
            }
        }
    }

    /// The coin toss mirrors about half of the positions, differently in each epoch.
    #[test]
    fn about_half_of_the_positions_are_mirrored() {
        let count = |epoch| (0..10_000).filter(|&i| mirrored(i, epoch)).count();
        for epoch in 1..4 {
            assert!((4_700..5_300).contains(&count(epoch)), "{}", count(epoch));
        }
        assert!((0..100).any(|i| mirrored(i, 1) != mirrored(i, 2)));
    }

    /// Six labelled positions, twenty times over.
    fn small_set() -> Dataset {
        let fens = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
                0,
                0.5,
            ),
            ("8/8/p7/8/8/8/7P/8 w - - 0 1", 400, 1.0),
            ("8/8/p7/8/8/8/7P/8 b - - 0 1", -400, 1.0),
            ("4k3/8/8/8/8/8/8/RNBQKBNR w - - 0 1", -900, 0.0),
            ("4k3/8/8/8/8/8/8/RNBQKBNR b - - 0 1", 900, 0.0),
            ("rnbqkbnr/8/8/8/8/8/8/4K3 w - - 0 1", 900, 1.0),
        ];
        let text: String = fens
            .iter()
            .map(|&(fen, score, white)| {
                let pos = parse_fen(fen).expect("valid");
                format_line(&pos, score, white, StalemateRule::StalematedSideWins) + "\n"
            })
            .collect::<Vec<_>>()
            .concat()
            .repeat(20);
        let (data, skipped) =
            Dataset::read(vec![std::io::Cursor::new(text.into_bytes())]).expect("reads");
        assert_eq!((data.len(), skipped), (120, 0));
        data
    }

    /// Thirty epochs on `small_set` from random weights, positions shown mirrored half of the
    /// time with `mirror`: the data, the settings and the result.
    fn fit_small_set(mirror: bool) -> (Dataset, TrainConfig, Trained) {
        let data = small_set();
        let config = TrainConfig {
            epochs: 30,
            batch: 16,
            learning_rate: 0.01,
            validation: 0.1,
            mirror,
            ..TrainConfig::default()
        };
        let trained = train(&data, &config, &mut |_| {});
        (data, config, trained)
    }

    /// A few epochs on a tiny set learn its labels: the loss falls, and the quantised network
    /// agrees with the float one.
    #[test]
    fn training_fits_a_small_set() {
        let (_, _, trained) = fit_small_set(false);
        let first = trained.epochs[0].train_loss;
        let last = trained.epochs[trained.epochs.len() - 1].train_loss;
        assert!(last < first * 0.5, "loss {first} -> {last}");
        assert!(
            trained.quantisation_error < 5.0,
            "{}",
            trained.quantisation_error
        );
        // The side with fewer pieces (a lone king against a full army) is judged better.
        let good = parse_fen("4k3/8/8/8/8/8/8/RNBQKBNR b - - 0 1").expect("valid");
        let bad = parse_fen("4k3/8/8/8/8/8/8/RNBQKBNR w - - 0 1").expect("valid");
        let rule = StalemateRule::StalematedSideWins;
        assert!(
            trained
                .network
                .evaluate_board(good.board(), good.turn(), rule)
                > trained
                    .network
                    .evaluate_board(bad.board(), bad.turn(), rule)
        );
    }

    /// Trained with mirrored positions, the network fits the set as well and judges a position
    /// and its mirror alike, though the mirror is not in the data.
    #[test]
    fn training_with_mirrors_fits_both_sides_of_the_board() {
        let (_, _, trained) = fit_small_set(true);
        let first = trained.epochs[0].train_loss;
        let last = trained.epochs[trained.epochs.len() - 1].train_loss;
        assert!(last < first * 0.5, "loss {first} -> {last}");
        let rule = StalemateRule::StalematedSideWins;
        let eval = |fen: &str| {
            let pos = parse_fen(fen).expect("valid");
            trained
                .network
                .evaluate_board(pos.board(), pos.turn(), rule)
        };
        // Törngren's position and its mirror: both won for White to move.
        let (seen, mirror) = (
            eval("8/8/p7/8/8/8/7P/8 w - - 0 1"),
            eval("8/8/7p/8/8/8/P7/8 w - - 0 1"),
        );
        assert!(seen > 0 && mirror > 0, "{seen} and {mirror}");
        // Without mirrors the unseen mirror scores far from the seen one (793 against 30 when
        // this was written); with them, within a quarter.
        assert!(
            (seen - mirror).abs() * 4 < seen.max(mirror),
            "{seen} and {mirror}"
        );
    }

    /// Fine-tuning starts from the given network: with a vanishing learning rate it comes back
    /// unchanged (to one rounding step), and its first epoch already has the trained loss.
    #[test]
    fn fine_tuning_starts_from_the_given_network() {
        let (data, config, trained) = fit_small_set(false);
        let from_random = trained.epochs[0].train_loss;
        let tuned = train(
            &data,
            &TrainConfig {
                epochs: 1,
                learning_rate: 1e-9,
                init: Some(trained.network.clone()),
                ..config
            },
            &mut |_| {},
        );
        let close = |a: &[i16], b: &[i16]| a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1);
        let (after, before) = (&tuned.network, &trained.network);
        assert!(close(&after.ft_weights, &before.ft_weights));
        assert!(close(&after.ft_bias, &before.ft_bias));
        assert!(close(&after.out_weights, &before.out_weights));
        let start = tuned.epochs[0].train_loss;
        assert!(start < from_random * 0.5, "{start} against {from_random}");
    }

    /// With the first layer frozen, fine-tuning keeps its weights and biases exactly (the file
    /// shares them with the network it started from) and still learns through the outputs.
    #[test]
    fn a_frozen_first_layer_stays_as_it_was() {
        let (data, config, trained) = fit_small_set(false);
        let mut off = trained.network.clone();
        // Off by two units of SCALE everywhere, so that the outputs have something to learn.
        for b in off.out_bias.iter_mut() {
            *b += 2 * QA * QB;
        }
        let tuned = train(
            &data,
            &TrainConfig {
                epochs: 5,
                init: Some(off.clone()),
                freeze_first_layer: true,
                ..config
            },
            &mut |_| {},
        );
        assert_eq!(tuned.network.ft_weights, off.ft_weights);
        assert_eq!(tuned.network.ft_bias, off.ft_bias);
        assert_ne!(tuned.network.out_weights, off.out_weights);
        let (first, last) = (
            tuned.epochs[0].train_loss,
            tuned.epochs[tuned.epochs.len() - 1].train_loss,
        );
        assert!(last < first, "loss {first} -> {last}");
    }

    /// Neurons a network does not use (as in a narrower file read at this build's width) start
    /// with random first-layer weights and learn, while the starting network still evaluates
    /// as it did (their output weights start at zero).
    #[test]
    fn dead_neurons_come_alive_when_fine_tuning() {
        let (data, config, trained) = fit_small_set(false);
        let mut half = trained.network.clone();
        let h = HIDDEN / 2;
        half.kill_neurons_from(h);
        // Off by two units of SCALE everywhere, so that there is something left to learn.
        for b in half.out_bias.iter_mut() {
            *b += 2 * QA * QB;
        }
        let mut params = Params::from_network(&half);
        params.revive_dead_neurons(&mut Rng::new(1));
        let quiet = |p: &Params, j: usize| p.ft.iter().skip(j).step_by(HIDDEN).all(|&w| w == 0.0);
        assert!((h..HIDDEN).all(|j| !quiet(&params, j)));
        assert!(params
            .out
            .chunks_exact(HIDDEN)
            .all(|l| l[h..].iter().all(|&w| w == 0.0)));
        let tuned = train(
            &data,
            &TrainConfig {
                epochs: 3,
                init: Some(half.clone()),
                ..config
            },
            &mut |_| {},
        );
        let moved = tuned
            .network
            .out_weights
            .chunks_exact(HIDDEN)
            .any(|l| l[h..].iter().any(|&w| w != 0));
        assert!(moved, "the revived neurons' output weights stayed at zero");
    }
}
