//! The audit's positions: random endgames, dead and nearly dead positions, positions near the
//! fifty-move draw, hidden draws, and positions of the book's trees with a repeating history.

use std::collections::HashMap;

use shakmaty::{
    fen::Fen, uci::UciMove, variant::Antichess, Board, CastlingMode, Color, EnPassantMode, Move,
    Piece, Position, Role, Setup, Square,
};

use super::{key, rules_result, Judge, Rng, Rule};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Endgame,
    Dead,
    FiftyMoves,
    HiddenDraw,
    BookHistory,
    BookHarmless,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Endgame => "random 2-4 piece endgames",
            Kind::Dead => "dead and nearly dead",
            Kind::FiftyMoves => "near the fifty-move draw",
            Kind::HiddenDraw => "one drawing move among losing ones",
            Kind::BookHistory => "book trees with a repeating history",
            Kind::BookHarmless => "book trees with a harmless history",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Case {
    pub kind: Kind,
    /// The start position and the moves (UCI) played from it; the last position is judged.
    pub fen: String,
    pub moves: Vec<String>,
}

impl Case {
    pub fn simple(kind: Kind, pos: &Antichess) -> Case {
        Case {
            kind,
            fen: fen_of(pos),
            moves: Vec::new(),
        }
    }

    /// The judged position and how often each earlier position of the game occurred since the
    /// last capture or pawn move (empty without moves, or when the last move was one).
    pub fn replay(&self) -> (Antichess, HashMap<u64, u32>) {
        let mut pos = parse(&self.fen);
        let mut keys = vec![key(&pos)];
        for text in &self.moves {
            pos.play_unchecked(parse_move(&pos, text));
            if pos.halfmoves() == 0 {
                keys.clear();
            }
            keys.push(key(&pos));
        }
        // Earlier positions only: the final one's own occurrence is not counted.
        keys.pop();
        let mut counts = HashMap::new();
        for k in keys {
            *counts.entry(k).or_insert(0) += 1;
        }
        (pos, counts)
    }
}

/// A legal move of `pos` in UCI notation (the audit's own cases: a bad one is a bug of the test).
pub fn parse_move(pos: &Antichess, text: &str) -> Move {
    text.parse::<UciMove>()
        .expect("uci")
        .to_move(pos)
        .expect("legal")
}

pub fn fen_of(pos: &Antichess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

pub fn parse(fen: &str) -> Antichess {
    fen.parse::<Fen>()
        .expect("fen")
        .into_position(CastlingMode::Standard)
        .expect("legal position")
}

const ROLES: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

/// A random legal position of the given pieces (pawns off the back ranks), the side to move at
/// random; `None` when the squares drawn do not make a legal position.
fn place(rng: &mut Rng, pieces: &[Piece], halfmoves: u32) -> Option<Antichess> {
    let mut board = Board::empty();
    for &piece in pieces {
        let square = loop {
            let s = Square::new(rng.below(64) as u32);
            let back = matches!(s.rank(), shakmaty::Rank::First | shakmaty::Rank::Eighth);
            if board.piece_at(s).is_none() && !(piece.role == Role::Pawn && back) {
                break s;
            }
        };
        board.set_piece_at(square, piece);
    }
    let mut setup = Setup::empty();
    setup.board = board;
    setup.turn = if rng.below(2) == 0 {
        Color::White
    } else {
        Color::Black
    };
    setup.halfmoves = halfmoves;
    <Antichess as shakmaty::FromSetup>::from_setup(setup, CastlingMode::Standard).ok()
}

fn random_pieces(rng: &mut Rng, count: usize, pawns: bool) -> Vec<Piece> {
    let mut pieces = vec![
        Piece {
            color: Color::White,
            role: ROLES[rng.below(6)],
        },
        Piece {
            color: Color::Black,
            role: ROLES[rng.below(6)],
        },
    ];
    while pieces.len() < count {
        let color = if rng.below(2) == 0 {
            Color::White
        } else {
            Color::Black
        };
        pieces.push(Piece {
            color,
            role: ROLES[rng.below(6)],
        });
    }
    if !pawns {
        for p in &mut pieces {
            if p.role == Role::Pawn {
                p.role = Role::Knight;
            }
        }
    }
    pieces
}

pub fn endgames(rng: &mut Rng, n: usize, pawns: bool, halfmoves: (u32, u32)) -> Vec<Antichess> {
    let mut out = Vec::new();
    while out.len() < n {
        let count = 2 + rng.below(3);
        let pieces = random_pieces(rng, count, pawns);
        let clock = halfmoves.0 + rng.below((halfmoves.1 - halfmoves.0 + 1) as usize) as u32;
        if let Some(pos) = place(rng, &pieces, clock) {
            if rules_result(&pos, Rule::Draw, pos.legal_moves().len()).is_none() {
                out.push(pos);
            }
        }
    }
    out
}

fn bishop_on(rng: &mut Rng, color: Color, light: bool) -> (Piece, Square) {
    loop {
        let s = Square::new(rng.below(64) as u32);
        if s.is_light() == light {
            return (
                Piece {
                    color,
                    role: Role::Bishop,
                },
                s,
            );
        }
    }
}

/// Opposite-coloured bishops (dead), the same with one more piece, or bishops of both colours
/// on one side (nearly dead).
pub fn dead_positions(rng: &mut Rng, n: usize) -> Vec<Antichess> {
    let mut out = Vec::new();
    while out.len() < n {
        let white_light = rng.below(2) == 0;
        let mut placed: Vec<(Piece, Square)> = Vec::new();
        for _ in 0..1 + rng.below(2) {
            placed.push(bishop_on(rng, Color::White, white_light));
        }
        for _ in 0..1 + rng.below(2) {
            placed.push(bishop_on(rng, Color::Black, !white_light));
        }
        match rng.below(3) {
            0 => {}
            1 => {
                let color = if rng.below(2) == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                let role = [Role::Pawn, Role::Knight, Role::King, Role::Rook][rng.below(4)];
                let s = Square::new(8 + rng.below(48) as u32);
                placed.push((Piece { color, role }, s));
            }
            _ => placed.push(bishop_on(rng, Color::White, !white_light)),
        }
        let mut board = Board::empty();
        let mut clash = false;
        for (piece, s) in placed {
            clash |= board.piece_at(s).is_some();
            board.set_piece_at(s, piece);
        }
        if clash {
            continue;
        }
        let mut setup = Setup::empty();
        setup.board = board;
        setup.turn = if rng.below(2) == 0 {
            Color::White
        } else {
            Color::Black
        };
        if let Ok(pos) =
            <Antichess as shakmaty::FromSetup>::from_setup(setup, CastlingMode::Standard)
        {
            out.push(pos);
        }
    }
    out
}

/// Positions drawn by the tables where exactly one move keeps the draw and at least two lose.
pub fn hidden_draws(rng: &mut Rng, judge: &Judge, n: usize, pawns: bool) -> Vec<Antichess> {
    let mut out = Vec::new();
    let mut tries = 0;
    while out.len() < n && tries < 200_000 {
        tries += 1;
        let count = 3 + rng.below(2);
        let mut pieces = random_pieces(rng, count, pawns);
        if rng.below(2) == 0 {
            // A white bishop and a black one on the other colour make dead draws common.
            pieces[0].role = Role::Bishop;
            pieces[1].role = Role::Bishop;
        }
        let Some(pos) = place(rng, &pieces, 0) else {
            continue;
        };
        if judge.table_result(&pos) != Some(None) {
            continue;
        }
        let moves = pos.legal_moves();
        let mut draws = 0;
        let mut losses = 0;
        for m in &moves {
            let mut child = pos.clone();
            child.play_unchecked(*m);
            match judge.table_result(&child) {
                Some(None) => draws += 1,
                Some(Some(w)) if w != pos.turn() => losses += 1,
                _ => draws += 10,
            }
        }
        if draws == 1 && losses >= 2 {
            out.push(pos);
        }
    }
    out
}

fn reversible(m: &Move) -> bool {
    !m.is_capture() && m.role() != Role::Pawn
}

fn reverse_of(pos: &Antichess, m: &Move) -> Option<Move> {
    let (from, to) = (m.from()?, m.to());
    pos.legal_moves()
        .iter()
        .copied()
        .find(|r| r.from() == Some(to) && r.to() == from && !r.is_capture())
}

fn play(pos: &Antichess, m: Move) -> Antichess {
    let mut p = pos.clone();
    p.play_unchecked(m);
    p
}

fn uci_of(m: Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

/// From `pos`, the reverses of `first` then of `second` (each played by the side to move then),
/// when both are legal and lead back to `target`.
fn undo_both(
    pos: &Antichess,
    first: &Move,
    second: &Move,
    target: &Antichess,
) -> Option<(Move, Move)> {
    let first_back = reverse_of(pos, first)?;
    let between = play(pos, first_back);
    let second_back = reverse_of(&between, second)?;
    (key(&play(&between, second_back)) == key(target)).then_some((first_back, second_back))
}

/// A history that lets the loser repeat: for a loser to move at `root`, a reversible move `r`
/// to Q and a winner's reversible move `w` there, both undoable, give the game Q w r⁻¹ w⁻¹ r w
/// r⁻¹ w⁻¹ (Q twice, the root twice); for the winner to move, with its move `m` and a reply
/// `r`, the game Q m⁻¹ r⁻¹ m r m⁻¹ r⁻¹ (Q = root m r twice before the claim).
fn repeating_history(root: &Antichess, winner_move: Option<Move>) -> Option<Case> {
    match winner_move {
        None => {
            for r in root.legal_moves().iter().filter(|m| reversible(m)) {
                let q = play(root, *r);
                for w in q.legal_moves().iter().filter(|m| reversible(m)) {
                    // Q -w-> a -r⁻¹-> b -w⁻¹-> root.
                    let Some((r_back, w_back)) = undo_both(&play(&q, *w), r, w, root) else {
                        continue;
                    };
                    let moves = [*w, r_back, w_back, *r, *w, r_back, w_back];
                    return Some(Case {
                        kind: Kind::BookHistory,
                        fen: fen_of(&q),
                        moves: moves.iter().map(|&m| uci_of(m)).collect(),
                    });
                }
            }
            None
        }
        Some(m) => {
            if !reversible(&m) {
                return None;
            }
            let l = play(root, m);
            for r in l.legal_moves().iter().filter(|x| reversible(x)) {
                // Q -m⁻¹-> c -r⁻¹-> root.
                let q = play(&l, *r);
                let Some((m_back, r_back)) = undo_both(&q, &m, r, root) else {
                    continue;
                };
                let moves = [m_back, r_back, m, *r, m_back, r_back];
                return Some(Case {
                    kind: Kind::BookHistory,
                    fen: fen_of(&q),
                    moves: moves.iter().map(|&x| uci_of(x)).collect(),
                });
            }
            None
        }
    }
}

/// The same game cut short, so that the position the loser could repeat occurred only once:
/// the book's answer holds there.
fn harmless(case: &Case) -> Case {
    let keep = if case.moves.len() == 7 { 3 } else { 2 };
    Case {
        kind: Kind::BookHarmless,
        fen: case.fen.clone(),
        moves: case.moves[..keep].to_vec(),
    }
}

/// Positions of the book's trees (random walks: the book's move for the winner, any move for
/// the loser) from which a repeating history can be built; each with its harmless twin. The
/// walks follow the refutations (`book/syotti.book`), whose trees the book holds whole: the
/// proved sub-lines beside them are thinned, so most of their loser's positions are not
/// answered at once and would tell nothing about the history check.
pub fn book_history_cases(rng: &mut Rng, n: usize) -> Vec<Case> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("book/syotti.book");
    let bytes = std::fs::read(path).expect("book/syotti.book");
    let book = syotti::proof::book::ProofBook::from_bytes(&bytes).expect("the refutations");
    let rule = book.rule();
    let mut out = Vec::new();
    let mut walks = 0;
    while out.len() < 2 * n && walks < 3_000 {
        walks += 1;
        let root = book.roots()[rng.below(book.roots().len())].clone();
        let mut pos = parse(&root.fen);
        for _ in 0..(4 + rng.below(30)) {
            let win = book.probe(&pos, rule);
            if pos.turn() == root.winner {
                let Some(hit) = win else { break };
                if rng.below(4) == 0 {
                    if let Some(case) = repeating_history(&pos, Some(hit.best)) {
                        out.push(harmless(&case));
                        out.push(case);
                        break;
                    }
                }
                pos.play_unchecked(hit.best);
            } else {
                if rng.below(3) == 0 {
                    if let Some(case) = repeating_history(&pos, None) {
                        out.push(harmless(&case));
                        out.push(case);
                        break;
                    }
                }
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[rng.below(moves.len())];
                pos.play_unchecked(m);
            }
        }
    }
    out
}
