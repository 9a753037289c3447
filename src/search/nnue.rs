//! The learned evaluation (NNUE): a small network over the pieces' squares.
//!
//! Shape: 768 inputs per perspective (own or enemy piece × 6 roles × 64 squares, the squares
//! flipped for Black so each side sees the board from its own first rank) → `HIDDEN` neurons, the
//! same weights for both perspectives → squared clipped ReLU → one output per stalemate convention
//! (the "head"), read from both perspectives' neurons, the side to move's first. Antichess and
//! "stalemate is a draw" share a head; suicide (fewer pieces wins a stalemate) has its own, since
//! its endgames are judged differently. So the convention is an input of the network that picks
//! its last layer. Each head has `BUCKETS` output layers ("output buckets"), one per band of the
//! number of pieces on the board (`bucket`): a game runs from 32 pieces to none, and what a
//! neuron means for the result is not the same at both ends. The first layer is shared.
//!
//! Inference is in integers. The first layer's weights and the neurons (the "accumulator") are
//! `i16` scaled by `QA`; the output weights are `i16` scaled by `QB`. The accumulator is updated
//! incrementally: a move changes two to four inputs, so a child's accumulator is its parent's plus
//! and minus a few weight rows. [`AccumulatorStack`] keeps one per ply and computes them lazily,
//! only for the nodes that are evaluated, from the nearest computed ancestor.
//!
//! The loops (`kernels`) are compiled twice, once for AVX2, and the AVX2 copy is chosen at run
//! time when the CPU has it (the binary still runs on any x86-64, or any other target). A quiet
//! move's or a capture's update is one pass over the neurons.
//!
//! A network may be trained on top of the hand-made linear evaluation (`Base::Linear`): it then
//! learns only a correction, and the evaluation is the sum of the two.
//!
//! The network file: the magic `SYOTTINN`, then little-endian `u32`s (format version, inputs,
//! hidden, heads, QA, QB, output scale, base: 0 none, 1 linear, and from version 2 the buckets),
//! then `i16` first-layer weights (input-major), `i16` first-layer biases, `i16` output weights
//! (head-major, then bucket, side to move's neurons first), `i32` output biases (the same order),
//! and nothing after. `train::trainer` writes version 2. A version-1 file (one output layer per
//! head, the networks before buckets) is read with its layer copied into every bucket, so it
//! evaluates exactly as it did. A file with fewer neurons than `HIDDEN` is read widened with dead
//! neurons (zero weights in and out), so it too evaluates exactly as it did; `HIDDEN` can be
//! raised for an experiment and a wider network fine-tuned from today's (see `nets/README.md`).
//!
//! The engine embeds one network, `nets/syotti.nnue`, for every convention: its antichess head
//! serves antichess and stalemate-is-a-draw games, its suicide head suicide games. Until round 18
//! suicide had a network of its own, fine-tuned whole on suicide games (fine-tuning the one network
//! for suicide cost it strength in antichess); since round 18 the suicide head is trained over the
//! antichess network's frozen first layer instead (`train --freeze-first-layer`; round 20 today),
//! so one file holds both (see `nets/README.md` for how it was made and measured). The UCI
//! option `EvalFile` loads another file in its place.

use std::sync::Arc;

use once_cell::sync::Lazy;
use shakmaty::{Board, Color, Piece, Role};
use thiserror::Error;

use super::{Score, EVAL_LIMIT, MAX_PLY};
use crate::rules::StalemateRule;

/// Inputs per perspective.
pub const INPUTS: usize = 768;
/// Neurons per perspective.
pub const HIDDEN: usize = 256;
/// Output heads: one per family of stalemate conventions.
pub const HEADS: usize = 2;
/// Output layers per head, by the number of pieces on the board (`bucket`).
pub const BUCKETS: usize = 8;
/// Output layers in all.
pub const OUTPUTS: usize = HEADS * BUCKETS;
/// Quantisation of the first layer (weights, biases, neurons) and of the output weights.
pub const QA: i32 = 255;
pub const QB: i32 = 1024;
/// Centipawns per unit of the network's output.
pub const SCALE: i32 = 400;
/// The file format's version (this build also reads version 1).
pub const FORMAT_VERSION: u32 = 2;
pub const MAGIC: &[u8; 8] = b"SYOTTINN";

/// The network the engine embeds.
static EMBEDDED_BYTES: &[u8] = include_bytes!("../../nets/syotti.nnue");

static EMBEDDED: Lazy<Option<Arc<Network>>> =
    Lazy::new(|| Network::from_bytes(EMBEDDED_BYTES).ok().map(Arc::new));

/// The embedded network (`None` only if the build embedded a bad file, which a test rules out).
pub fn embedded() -> Option<Arc<Network>> {
    EMBEDDED.clone()
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum NetworkError {
    #[error("not a Syotti network file (bad magic)")]
    Magic,
    #[error("network format version {0}, this build reads versions 1 and {FORMAT_VERSION}")]
    Version(u32),
    #[error("network shape {inputs}x{hidden}x{heads}x{buckets}, this build needs {INPUTS}x(1 to {HIDDEN})x{HEADS}x{BUCKETS}")]
    Shape {
        inputs: u32,
        hidden: u32,
        heads: u32,
        buckets: u32,
    },
    #[error("network quantisation QA={qa} QB={qb} scale={scale}, this build needs QA={QA} QB={QB} scale={SCALE}")]
    Quantisation { qa: u32, qb: u32, scale: u32 },
    #[error("unknown network base {0} (0: none, 1: linear)")]
    Base(u32),
    #[error("network file is {found} bytes, expected {expected}")]
    Length { found: usize, expected: usize },
    #[error("cannot read the network file {path}: {reason}")]
    Io { path: String, reason: String },
}

/// What the network's output is added to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Base {
    /// Nothing: the network is the whole evaluation.
    #[default]
    None,
    /// The hand-made linear evaluation (`search::eval`) of the convention's weights.
    Linear,
}

impl Base {
    fn code(self) -> u32 {
        match self {
            Base::None => 0,
            Base::Linear => 1,
        }
    }
}

/// A quantised network.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    pub base: Base,
    /// `INPUTS × HIDDEN`, input-major.
    pub ft_weights: Vec<i16>,
    pub ft_bias: Vec<i16>,
    /// `OUTPUTS × 2·HIDDEN` (`output` orders them): the side to move's neurons' weights, then
    /// the opponent's.
    pub out_weights: Vec<i16>,
    /// `OUTPUTS`.
    pub out_bias: Vec<i32>,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Network({INPUTS}x{HIDDEN}x{HEADS}x{BUCKETS})")
    }
}

/// The header's length in a file of `version`.
const fn header_len(version: u32) -> usize {
    if version == 1 {
        8 + 8 * 4
    } else {
        8 + 9 * 4
    }
}

/// The length of a file of `version` with `hidden` neurons a side and `buckets` output layers a
/// head (the other sizes are this build's).
const fn file_len_of(version: u32, hidden: usize, buckets: usize) -> usize {
    header_len(version)
        + 2 * (INPUTS * hidden + hidden + HEADS * buckets * 2 * hidden)
        + 4 * HEADS * buckets
}

/// The length of the file this build writes.
pub const fn file_len() -> usize {
    file_len_of(FORMAT_VERSION, HIDDEN, BUCKETS)
}

/// `values` cut into runs of `from`, each padded with zeros to `to` (`to >= from`): how a
/// narrower network's weights take this build's width.
fn widen(values: Vec<i16>, from: usize, to: usize) -> Vec<i16> {
    if from == to {
        return values;
    }
    values
        .chunks_exact(from)
        .flat_map(|run| run.iter().copied().chain(std::iter::repeat_n(0, to - from)))
        .collect()
}

/// The output bucket of a position with `pieces` pieces on the board: 1–4 pieces bucket 0, 5–8
/// bucket 1, ..., 29–32 bucket 7.
#[inline]
pub fn bucket(pieces: u32) -> usize {
    ((pieces.max(1) - 1) as usize / 4).min(BUCKETS - 1)
}

/// The output layer a position of `pieces` pieces reads under `rule`.
#[inline]
pub fn output(rule: StalemateRule, pieces: u32) -> usize {
    head_output(head(rule), pieces)
}

/// The output layer of head `head` for a position of `pieces` pieces (the trainer keeps heads,
/// not conventions).
#[inline]
pub fn head_output(head: usize, pieces: u32) -> usize {
    head * BUCKETS + bucket(pieces)
}

impl Network {
    /// Zeroes every weight of neurons `first..` (in, bias and out): dead neurons, as a narrower
    /// file read at this build's width has.
    #[cfg(test)]
    pub(crate) fn kill_neurons_from(&mut self, first: usize) {
        let runs = self.ft_weights.chunks_exact_mut(HIDDEN);
        for run in runs.chain(self.out_weights.chunks_exact_mut(HIDDEN)) {
            run[first..].fill(0);
        }
        self.ft_bias[first..].fill(0);
    }

    /// A network of zeros (it evaluates every position to 0).
    pub fn zeroed() -> Network {
        Network {
            base: Base::None,
            ft_weights: vec![0; INPUTS * HIDDEN],
            ft_bias: vec![0; HIDDEN],
            out_weights: vec![0; OUTPUTS * 2 * HIDDEN],
            out_bias: vec![0; OUTPUTS],
        }
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        if bytes.len() < header_len(1) || &bytes[..8] != MAGIC {
            return Err(NetworkError::Magic);
        }
        let word = |i: usize| {
            let at = 8 + 4 * i;
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let version = word(0);
        if version != 1 && version != FORMAT_VERSION {
            return Err(NetworkError::Version(version));
        }
        if bytes.len() < header_len(version) {
            return Err(NetworkError::Length {
                found: bytes.len(),
                expected: header_len(version),
            });
        }
        let (inputs, hidden, heads) = (word(1), word(2), word(3));
        // Version 1 has one layer a head; version 2 must have this build's buckets (the only
        // lengths `load` lets through). A file may have fewer neurons than this build: it is
        // widened with neurons that are always zero (see below).
        let buckets = if version == 1 { 1 } else { word(8) };
        if (inputs as usize, heads as usize) != (INPUTS, HEADS)
            || !(1..=HIDDEN).contains(&(hidden as usize))
            || (version != 1 && buckets as usize != BUCKETS)
        {
            return Err(NetworkError::Shape {
                inputs,
                hidden,
                heads,
                buckets,
            });
        }
        let (qa, qb, scale) = (word(4), word(5), word(6));
        if (qa as i32, qb as i32, scale as i32) != (QA, QB, SCALE) {
            return Err(NetworkError::Quantisation { qa, qb, scale });
        }
        let base = match word(7) {
            0 => Base::None,
            1 => Base::Linear,
            other => return Err(NetworkError::Base(other)),
        };
        let expected = file_len_of(version, hidden as usize, buckets as usize);
        if bytes.len() != expected {
            return Err(NetworkError::Length {
                found: bytes.len(),
                expected,
            });
        }
        let mut at = header_len(version);
        let mut read_i16 = |n: usize| {
            let v: Vec<i16> = bytes[at..at + 2 * n]
                .chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]))
                .collect();
            at += 2 * n;
            v
        };
        // A narrower file's extra neurons get zero weights and bias in the first layer, so they
        // are always zero, and zero output weights: the network evaluates exactly as the file
        // does. (The trainer gives such dead neurons random first-layer weights when it starts
        // from this network, so that they can learn.)
        let h = hidden as usize;
        let ft_weights = widen(read_i16(INPUTS * h), h, HIDDEN);
        let ft_bias = widen(read_i16(h), h, HIDDEN);
        let mut out_weights = widen(read_i16(HEADS * buckets as usize * 2 * h), h, HIDDEN);
        let mut out_bias: Vec<i32> = bytes[expected - 4 * HEADS * buckets as usize..]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if version == 1 {
            // A version-1 file: every bucket of a head gets the head's one layer.
            out_weights = out_weights
                .chunks_exact(2 * HIDDEN)
                .flat_map(|layer| std::iter::repeat_n(layer, BUCKETS).flatten().copied())
                .collect();
            out_bias = out_bias
                .iter()
                .flat_map(|&b| std::iter::repeat_n(b, BUCKETS))
                .collect();
        }
        Ok(Network {
            base,
            ft_weights,
            ft_bias,
            out_weights,
            out_bias,
        })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(file_len());
        out.extend_from_slice(MAGIC);
        for w in [
            FORMAT_VERSION,
            INPUTS as u32,
            HIDDEN as u32,
            HEADS as u32,
            QA as u32,
            QB as u32,
            SCALE as u32,
            self.base.code(),
            BUCKETS as u32,
        ] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for v in self
            .ft_weights
            .iter()
            .chain(&self.ft_bias)
            .chain(&self.out_weights)
        {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for b in &self.out_bias {
            out.extend_from_slice(&b.to_le_bytes());
        }
        out
    }

    /// Reads a network file.
    pub fn load(path: &str) -> Result<Network, NetworkError> {
        let io = |e: std::io::Error| NetworkError::Io {
            path: path.to_string(),
            reason: e.to_string(),
        };
        let len = std::fs::metadata(path).map_err(io)?.len();
        // A file larger than any this build reads is refused before it is read (it may be
        // anything); `from_bytes` checks the exact length of the shape the header gives.
        if len > file_len() as u64 {
            return Err(NetworkError::Length {
                found: usize::try_from(len).unwrap_or(usize::MAX),
                expected: file_len(),
            });
        }
        Network::from_bytes(&std::fs::read(path).map_err(io)?)
    }

    fn row(&self, feature: usize) -> &[i16] {
        &self.ft_weights[feature * HIDDEN..(feature + 1) * HIDDEN]
    }

    /// The accumulator of `board`, from scratch.
    pub fn refresh(&self, board: &Board, acc: &mut Accumulator) {
        for persp in [Color::White, Color::Black] {
            let mut features = [0usize; 32];
            let mut n = 0;
            for (sq, piece) in board.iter() {
                if n < features.len() {
                    features[n] = feature(persp, piece, sq);
                    n += 1;
                }
            }
            let v = &mut acc.v[persp as usize];
            v.copy_from_slice(&self.ft_bias);
            // More than 32 pieces cannot be on a legal board; a board that has them still gets
            // its first 32 counted.
            for &f in &features[..n] {
                kernels::add(v, self.row(f));
            }
        }
    }

    /// `child` = `parent` updated for the pieces that differ between the two boards.
    pub fn update(&self, parent: &Accumulator, from: &Board, to: &Board, child: &mut Accumulator) {
        // A move changes at most four (square, piece) pairs (en passant: three; a promotion with
        // a capture: three); anything else is refreshed.
        let blank = (
            Piece {
                color: Color::White,
                role: Role::Pawn,
            },
            shakmaty::Square::A1,
        );
        let mut added = [blank; 4];
        let mut removed = added;
        let (mut n_add, mut n_rem) = (0, 0);
        for color in [Color::White, Color::Black] {
            for role in Role::ALL {
                let piece = Piece { color, role };
                let before = from.by_piece(piece);
                let after = to.by_piece(piece);
                for sq in after & !before {
                    if n_add == 4 {
                        self.refresh(to, child);
                        return;
                    }
                    added[n_add] = (piece, sq);
                    n_add += 1;
                }
                for sq in before & !after {
                    if n_rem == 4 {
                        self.refresh(to, child);
                        return;
                    }
                    removed[n_rem] = (piece, sq);
                    n_rem += 1;
                }
            }
        }
        for persp in [Color::White, Color::Black] {
            let mut adds = [0usize; 4];
            let mut subs = [0usize; 4];
            for (i, &(piece, sq)) in added[..n_add].iter().enumerate() {
                adds[i] = feature(persp, piece, sq);
            }
            for (i, &(piece, sq)) in removed[..n_rem].iter().enumerate() {
                subs[i] = feature(persp, piece, sq);
            }
            let (out, before) = (&mut child.v[persp as usize], &parent.v[persp as usize]);
            match (n_add, n_rem) {
                // A quiet move, and a capture: one pass over the neurons.
                (1, 1) => kernels::add_sub(out, before, self.row(adds[0]), self.row(subs[0])),
                (1, 2) => kernels::add_sub2(
                    out,
                    before,
                    self.row(adds[0]),
                    self.row(subs[0]),
                    self.row(subs[1]),
                ),
                _ => {
                    out.copy_from_slice(before);
                    for &f in &adds[..n_add] {
                        kernels::add(out, self.row(f));
                    }
                    for &f in &subs[..n_rem] {
                        kernels::sub(out, self.row(f));
                    }
                }
            }
        }
    }

    /// The evaluation in centipawns for `turn` to move with `pieces` pieces on the board, under
    /// `rule`'s head.
    pub fn evaluate(
        &self,
        acc: &Accumulator,
        turn: Color,
        rule: StalemateRule,
        pieces: u32,
    ) -> Score {
        let layer = output(rule, pieces);
        let w = &self.out_weights[layer * 2 * HIDDEN..(layer + 1) * 2 * HIDDEN];
        let sum = kernels::output(&acc.v[turn as usize], &w[..HIDDEN])
            + kernels::output(&acc.v[!turn as usize], &w[HIDDEN..]);
        let raw = sum / QA as i64 + self.out_bias[layer] as i64;
        let cp = raw * SCALE as i64 / (QA * QB) as i64;
        cp.clamp(-(EVAL_LIMIT as i64), EVAL_LIMIT as i64) as Score
    }

    /// The whole evaluation of a position (the network plus its base), from scratch.
    pub fn evaluate_position(
        &self,
        pos: &shakmaty::variant::Antichess,
        rule: StalemateRule,
    ) -> Score {
        use shakmaty::Position;
        let net = self.evaluate_board(pos.board(), pos.turn(), rule);
        (net + self.base_eval(pos, rule)).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// The base evaluation the network's output is added to.
    #[inline]
    pub fn base_eval(&self, pos: &shakmaty::variant::Antichess, rule: StalemateRule) -> Score {
        match self.base {
            Base::None => 0,
            Base::Linear => {
                super::eval::evaluate_with(pos, super::eval::EvalParams::for_rule(rule))
            }
        }
    }

    /// The network's own output for a board, from scratch (tests and tools; the search updates
    /// incrementally).
    pub fn evaluate_board(&self, board: &Board, turn: Color, rule: StalemateRule) -> Score {
        let mut acc = Accumulator::default();
        self.refresh(board, &mut acc);
        self.evaluate(&acc, turn, rule, board.occupied().count() as u32)
    }
}

/// The head a stalemate convention reads.
pub const fn head(rule: StalemateRule) -> usize {
    match rule {
        StalemateRule::StalematedSideWins | StalemateRule::Draw => 0,
        StalemateRule::FewerPiecesWins => 1,
    }
}

/// The input index of `piece` on `sq` seen from `persp`.
#[inline]
pub fn feature(persp: Color, piece: Piece, sq: shakmaty::Square) -> usize {
    let side = usize::from(piece.color != persp);
    let sq = match persp {
        Color::White => sq as usize,
        Color::Black => sq as usize ^ 56,
    };
    side * 384 + (piece.role as usize - 1) * 64 + sq
}

/// The neurons of both perspectives, indexed by `Color as usize`.
#[derive(Clone)]
#[repr(C, align(64))]
pub struct Accumulator {
    pub v: [[i16; HIDDEN]; 2],
}

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator {
            v: [[0; HIDDEN]; 2],
        }
    }
}

/// One accumulator per ply of the search path, computed when a node at that ply is evaluated.
pub struct AccumulatorStack {
    net: Arc<Network>,
    acc: Vec<Accumulator>,
    boards: Vec<Board>,
    /// The node at this ply was entered (so its board is the current path's).
    entered: Vec<bool>,
    /// Its accumulator is up to date.
    computed: Vec<bool>,
}

impl AccumulatorStack {
    pub fn new(net: Arc<Network>) -> AccumulatorStack {
        let plies = MAX_PLY + 2;
        AccumulatorStack {
            net,
            acc: vec![Accumulator::default(); plies],
            boards: vec![Board::empty(); plies],
            entered: vec![false; plies],
            computed: vec![false; plies],
        }
    }

    /// A node at `ply` is entered: its board replaces the one there. Every node at `ply + 1`
    /// entered from now on is its child.
    #[inline]
    pub fn enter(&mut self, ply: usize, board: &Board) {
        if ply < self.boards.len() {
            self.boards[ply].clone_from(board);
            self.entered[ply] = true;
            self.computed[ply] = false;
        }
    }

    /// The evaluation of the node at `ply` (entered with `enter`).
    pub fn evaluate(&mut self, ply: usize, turn: Color, rule: StalemateRule) -> Score {
        let ply = ply.min(self.boards.len() - 1);
        // The nearest ancestor whose accumulator is known, through entered plies only.
        let mut from = ply;
        while !self.computed[from] && from > 0 && self.entered[from - 1] && ply - from < 16 {
            from -= 1;
        }
        if !self.computed[from] {
            let (acc, board) = (&mut self.acc[from], &self.boards[from]);
            self.net.refresh(board, acc);
            self.computed[from] = true;
        }
        for p in from + 1..=ply {
            let (done, rest) = self.acc.split_at_mut(p);
            self.net.update(
                &done[p - 1],
                &self.boards[p - 1],
                &self.boards[p],
                &mut rest[0],
            );
            self.computed[p] = true;
        }
        let pieces = self.boards[ply].occupied().count() as u32;
        self.net.evaluate(&self.acc[ply], turn, rule, pieces)
    }

    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }
}

mod kernels;

/// Which build of the network's loops this CPU runs (`avx2` or `generic`).
pub fn simd_name() -> &'static str {
    kernels::name()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::parse_fen;
    use shakmaty::{Position, Square};

    fn random_network(seed: u64) -> Network {
        let mut rng = crate::train::Rng::new(seed);
        let mut net = Network::zeroed();
        let mut small = |limit: i64| (rng.next_u64() % (2 * limit as u64 + 1)) as i64 - limit;
        for w in &mut net.ft_weights {
            *w = small(60) as i16;
        }
        for b in &mut net.ft_bias {
            *b = small(200) as i16;
        }
        for w in &mut net.out_weights {
            *w = small(2000) as i16;
        }
        for b in &mut net.out_bias {
            *b = small(100_000) as i32;
        }
        net
    }

    #[test]
    fn the_embedded_network_loads_with_a_head_for_each_convention() {
        let net = embedded().expect("the embedded network loads");
        // The suicide head was trained apart: its output layers are not the antichess head's.
        let per_head = net.out_weights.len() / HEADS;
        assert!(net.out_weights[..per_head] != net.out_weights[per_head..]);
        let start = shakmaty::variant::Antichess::default();
        let board = start.board();
        let turn = start.turn();
        // Stalemate-is-a-draw games read the antichess head.
        assert_eq!(
            net.evaluate_board(board, turn, StalemateRule::Draw),
            net.evaluate_board(board, turn, StalemateRule::StalematedSideWins)
        );
    }

    #[test]
    fn files_round_trip_and_bad_files_are_refused() {
        let net = random_network(7);
        let bytes = net.to_bytes();
        assert_eq!(bytes.len(), file_len());
        assert_eq!(Network::from_bytes(&bytes), Ok(net));
        assert_eq!(Network::from_bytes(b"nonsense"), Err(NetworkError::Magic));
        let mut short = bytes.clone();
        short.pop();
        assert!(matches!(
            Network::from_bytes(&short),
            Err(NetworkError::Length { .. })
        ));
        let mut one_bucket = bytes.clone();
        one_bucket[40..44].copy_from_slice(&1u32.to_le_bytes()); // buckets = 1 in version 2
        assert!(matches!(
            Network::from_bytes(&one_bucket),
            Err(NetworkError::Shape { buckets: 1, .. })
        ));
        let mut other = bytes.clone();
        let wider = HIDDEN as u32 + 8;
        other[16..20].copy_from_slice(&wider.to_le_bytes()); // more neurons than this build has
        assert!(matches!(
            Network::from_bytes(&other),
            Err(NetworkError::Shape { hidden, .. }) if hidden == wider
        ));
        let mut none = bytes.clone();
        none[16..20].copy_from_slice(&0u32.to_le_bytes());
        assert!(matches!(
            Network::from_bytes(&none),
            Err(NetworkError::Shape { hidden: 0, .. })
        ));
        let mut narrower = bytes;
        narrower[16..20].copy_from_slice(&7u32.to_le_bytes()); // a narrower header, this length
        assert!(matches!(
            Network::from_bytes(&narrower),
            Err(NetworkError::Length { .. })
        ));
    }

    #[test]
    fn version_one_files_read_with_their_layer_in_every_bucket() {
        // A file as the builds before output buckets wrote it: one layer a head.
        let net = random_network(9);
        let layer = |l: usize| &net.out_weights[l * 2 * HIDDEN..(l + 1) * 2 * HIDDEN];
        let mut bytes = MAGIC.to_vec();
        for w in [
            1,
            INPUTS,
            HIDDEN,
            HEADS,
            QA as usize,
            QB as usize,
            SCALE as usize,
            1,
        ] {
            bytes.extend_from_slice(&(w as u32).to_le_bytes());
        }
        let ft = net.ft_weights.iter().chain(&net.ft_bias);
        let heads = (0..HEADS).flat_map(|h| layer(h * BUCKETS).iter());
        for v in ft.chain(heads) {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        for h in 0..HEADS {
            bytes.extend_from_slice(&net.out_bias[h * BUCKETS].to_le_bytes());
        }
        assert_eq!(bytes.len(), file_len_of(1, HIDDEN, 1));
        let old = Network::from_bytes(&bytes).expect("a version-1 file reads");
        assert_eq!(old.base, Base::Linear);
        assert_eq!(old.ft_weights, net.ft_weights);
        for h in 0..HEADS {
            for b in 0..BUCKETS {
                let l = h * BUCKETS + b;
                assert_eq!(
                    &old.out_weights[l * 2 * HIDDEN..(l + 1) * 2 * HIDDEN],
                    layer(h * BUCKETS)
                );
                assert_eq!(old.out_bias[l], net.out_bias[h * BUCKETS]);
            }
        }
        // Written again, it is a version-2 file that reads back the same.
        assert_eq!(Network::from_bytes(&old.to_bytes()), Ok(old));
    }

    #[test]
    fn narrower_files_read_widened_with_dead_neurons() {
        // A network whose second half of neurons is dead, written with only its first half.
        let h = HIDDEN / 2;
        let mut net = random_network(21);
        net.kill_neurons_from(h);
        let full = net.to_bytes();
        let mut bytes = full[..header_len(FORMAT_VERSION)].to_vec();
        bytes[16..20].copy_from_slice(&(h as u32).to_le_bytes());
        let runs = net
            .ft_weights
            .chunks_exact(HIDDEN)
            .chain([&net.ft_bias[..]]);
        for run in runs.chain(net.out_weights.chunks_exact(HIDDEN)) {
            for v in &run[..h] {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
        }
        for b in &net.out_bias {
            bytes.extend_from_slice(&b.to_le_bytes());
        }
        assert_eq!(bytes.len(), file_len_of(FORMAT_VERSION, h, BUCKETS));
        assert_eq!(Network::from_bytes(&bytes), Ok(net));
    }

    #[test]
    fn buckets_follow_the_number_of_pieces() {
        let rule = StalemateRule::StalematedSideWins;
        assert_eq!((bucket(0), bucket(1), bucket(4), bucket(5)), (0, 0, 0, 1));
        assert_eq!(
            (bucket(28), bucket(29), bucket(32), bucket(40)),
            (6, 7, 7, 7)
        );
        assert_eq!(output(rule, 32), BUCKETS - 1);
        assert_eq!(output(StalemateRule::FewerPiecesWins, 1), BUCKETS);
        // The same neurons read through two buckets' layers give two evaluations.
        let net = random_network(13);
        let pos = parse_fen("8/8/8/8/8/8/8/KQRB1k2 w - - 0 1").expect("valid");
        let mut acc = Accumulator::default();
        net.refresh(pos.board(), &mut acc);
        let at = |pieces| net.evaluate(&acc, Color::White, rule, pieces);
        assert_eq!(at(5), net.evaluate_board(pos.board(), Color::White, rule));
        assert_eq!(at(5), at(8));
        assert_ne!(at(4), at(5));
    }

    #[test]
    fn incremental_updates_match_a_refresh_along_a_game() {
        let net = Arc::new(random_network(11));
        // Quiet moves, captures, en passant, promotions to a king and to a queen with capture.
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
            "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b - e3 0 3",
            "1n6/P7/8/8/8/8/8/7k w - - 0 1",
        ];
        for fen in fens {
            let mut pos = parse_fen(fen).expect("valid");
            let mut stack = AccumulatorStack::new(net.clone());
            stack.enter(0, pos.board());
            for ply in 1..40 {
                let moves = crate::rules::movegen::legal_moves(&pos);
                let Some(&m) = moves.get(ply % moves.len().max(1)) else {
                    break;
                };
                pos.play_unchecked(m);
                stack.enter(ply, pos.board());
                for rule in [
                    StalemateRule::StalematedSideWins,
                    StalemateRule::FewerPiecesWins,
                ] {
                    assert_eq!(
                        stack.evaluate(ply, pos.turn(), rule),
                        net.evaluate_board(pos.board(), pos.turn(), rule),
                        "{fen} ply {ply}"
                    );
                }
            }
        }
    }

    #[test]
    fn perspectives_mirror() {
        // The same position seen by the other side (ranks flipped, colours swapped) gets the
        // same evaluation.
        let net = random_network(3);
        let a = parse_fen("rn2k3/pp6/8/3q4/8/2N5/P4PPP/4K1NR w - - 0 1").expect("valid");
        let b = parse_fen("4k1nr/p4ppp/2n5/8/3Q4/8/PP6/RN2K3 b - - 0 1").expect("valid");
        let rule = StalemateRule::StalematedSideWins;
        assert_eq!(
            net.evaluate_board(a.board(), a.turn(), rule),
            net.evaluate_board(b.board(), b.turn(), rule)
        );
        assert_eq!(
            feature(
                Color::White,
                Piece {
                    color: Color::White,
                    role: Role::Pawn
                },
                Square::A2
            ),
            8
        );
        assert_eq!(
            feature(
                Color::Black,
                Piece {
                    color: Color::White,
                    role: Role::Pawn
                },
                Square::A2
            ),
            384 + 48
        );
    }

    #[test]
    fn simd_and_generic_loops_agree() {
        let net = random_network(5);
        let mut acc = Accumulator::default();
        let pos =
            parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1").expect("valid");
        net.refresh(pos.board(), &mut acc);
        let w = &net.out_weights[..HIDDEN];
        let generic: i64 = acc.v[1]
            .iter()
            .zip(w)
            .map(|(&v, &w)| {
                let c = i64::from(v.clamp(0, QA as i16));
                c * c * i64::from(w)
            })
            .sum();
        assert_eq!(kernels::output(&acc.v[1], w), generic);
    }
}
