//! The claims audit: every proven result Syotti shows is checked against an independent judge.
//!
//! Positions of five kinds (random 2–4 piece endgames, dead and nearly dead positions, positions a
//! move or two from a draw by the fifty-move rule, positions whose one drawing move hides among
//! losing ones, and positions of the book's trees reached with a history that lets the loser
//! repeat) go through every face that can claim a proven result: the UCI engine (`go`, with the
//! book, the proof scan and the tables on), `analyse --json` and `book probe --json`, under the
//! three stalemate conventions (the book answers only under its own).
//!
//! The judge shares no code with the engine: shakmaty's move generator and Zobrist keys, the rules
//! written out again here (no pieces, stalemate under the convention, opposite-coloured bishops,
//! fifty moves, threefold repetition with the game's history), the Syzygy tables through
//! shakmaty-syzygy, and a bounded AND/OR search. A claim `mate N` (either sign) says that the side
//! it names as winner forces the end of the game in its favour within 2N plies; the judge checks
//! exactly that, so a claim is false when the result is wrong and also when the claimed distance
//! is shorter than any forced win. Where the bounded search would be too big, the tables judge the
//! result alone (2–4 pieces, halfmove clock 0, no history; pawn tables only under the stalemated
//! side wins). Positions of the book's trees are judged on the repetition the history allows: a
//! claim is false when the loser can reach a third occurrence within the claimed line's first two
//! plies. A claim that none of these can judge is counted as unjudged and printed; a draw by the
//! rules shown as a mate is always judged (the root is checked first).
//!
//! Seeded: the same positions every run. The counts are printed (`cargo test --release --test
//! claims_audit -- --nocapture`).

mod claims;
mod common;

use std::{
    collections::HashMap,
    io::Write,
    process::{Command, Stdio},
};

use claims::{
    positions::{book_history_cases, dead_positions, endgames, hidden_draws, Case, Kind},
    Judge, Rng, Rule, Verdict,
};
use common::{tables_path, Engine};
use shakmaty::{san::San, uci::UciMove, Position};

// ---------------------------------------------------------------------------------------------
// The faces that claim.

/// What a face claims of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Claimed {
    /// `mate N`: positive wins, negative loses, within 2|N| plies.
    Mate(i32),
    /// A proven result without a distance (a table win, `cp` beyond `RESULT_CP`): true wins.
    Result(bool),
}

/// Scores beyond this are the engine's table wins (`TB_WIN` less at most `MAX_PLY`).
const RESULT_CP: i32 = 25_000 - 128;

#[derive(Clone, Debug)]
struct Claim {
    face: &'static str,
    /// What answered: the book, the proof memory, the proof scan, or the search.
    source: &'static str,
    claimed: Claimed,
    best: Option<String>,
    text: String,
}

/// What the engine said answered the search (its `info string` messages).
fn source_of(lines: &[String]) -> &'static str {
    if lines.iter().any(|l| l.starts_with("info string book:")) {
        "book"
    } else if lines.iter().any(|l| l.contains("(proved earlier)")) {
        "proof memory"
    } else if lines
        .iter()
        .any(|l| l.starts_with("info string proof: forced win"))
        || lines
            .iter()
            .any(|l| l.starts_with("info") && l.contains(" nodes 0 "))
    {
        "proof scan"
    } else {
        "search"
    }
}

/// Every proven score of one search (`mate N`, or a table win's `cp`), exact or a bound in the
/// claimed direction, of the first line.
fn uci_claims(lines: &[String]) -> Vec<Claim> {
    let mut claims = Vec::new();
    let best = lines
        .iter()
        .find_map(|l| l.strip_prefix("bestmove "))
        .and_then(|rest| rest.split_whitespace().next())
        .map(str::to_string);
    let source = source_of(lines);
    for line in lines
        .iter()
        .filter(|l| l.starts_with("info") && l.contains(" score "))
    {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(at) = words.iter().position(|w| *w == "score") else {
            continue;
        };
        let Some(n) = words.get(at + 2).and_then(|w| w.parse::<i32>().ok()) else {
            continue;
        };
        let claimed = match words.get(at + 1).copied() {
            Some("mate") => Claimed::Mate(n),
            Some("cp") if n.abs() > RESULT_CP => Claimed::Result(n > 0),
            _ => continue,
        };
        let wins = match claimed {
            Claimed::Mate(n) => n > 0,
            Claimed::Result(w) => w,
        };
        let claims_it = match words.get(at + 3).copied() {
            Some("lowerbound") => wins,
            Some("upperbound") => !wins,
            _ => true,
        };
        let multipv = words
            .iter()
            .position(|w| *w == "multipv")
            .and_then(|i| words.get(i + 1))
            .map_or(1, |v| v.parse().unwrap_or(1));
        let first = words
            .iter()
            .position(|w| *w == "pv")
            .and_then(|i| words.get(i + 1))
            .map(|s| s.to_string());
        if claims_it && multipv == 1 {
            claims.push(Claim {
                face: "uci",
                source,
                claimed,
                best: first.or_else(|| best.clone()),
                text: line.clone(),
            });
        }
    }
    claims
}

fn uci_position(case: &Case) -> String {
    if case.moves.is_empty() {
        format!("position fen {}", case.fen)
    } else {
        format!("position fen {} moves {}", case.fen, case.moves.join(" "))
    }
}

/// Each case's claims, and the game continuations with theirs.
type UciAnswers = (Vec<Vec<Claim>>, Vec<(Case, Vec<Claim>)>);

/// One UCI engine answers every case; each search's claims are returned per case.
fn run_uci(cases: &[Case], rule: Rule, tables: &str) -> UciAnswers {
    let mut engine = Engine::start();
    engine.send("uci");
    engine.until("uciok");
    engine.send("setoption name Hash value 16");
    engine.send(&format!("setoption name SyzygyPath value {tables}"));
    engine.send(&format!("setoption name Stalemate value {}", rule.uci()));
    engine.send("isready");
    engine.until("readyok");
    let mut out = Vec::new();
    let mut follow_ups = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        engine.send("ucinewgame");
        engine.send(&uci_position(case));
        // Every eighth search is long enough for the per-move proofs of the scan.
        let nodes = if i % 8 == 0 { 60_000 } else { 3_000 };
        engine.send(&format!("go nodes {nodes}"));
        let lines = engine.until("bestmove");
        let claims = uci_claims(&lines);
        // A win the proof scan found is remembered for the game: play two plies of its line
        // and ask again, twice (the proof memory answers, with the game's history).
        let mut next = claims
            .iter()
            .any(|c| {
                c.source == "proof scan"
                    && matches!(c.claimed, Claimed::Mate(1..) | Claimed::Result(true))
            })
            .then(|| pv_of(&lines))
            .flatten();
        let mut game = case.clone();
        for _ in 0..2 {
            let Some(pv) = next.take().filter(|pv| pv.len() >= 2) else {
                break;
            };
            game.moves.extend(pv[..2].iter().cloned());
            engine.send(&uci_position(&game));
            engine.send("go nodes 3000");
            let lines = engine.until("bestmove");
            next = Some(pv_of(&lines)).flatten();
            follow_ups.push((game.clone(), uci_claims(&lines)));
        }
        out.push(claims);
    }
    engine.send("quit");
    (out, follow_ups)
}

/// The principal variation of the last `info ... pv` line.
fn pv_of(lines: &[String]) -> Option<Vec<String>> {
    let line = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info") && l.contains(" pv "))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "pv")?;
    Some(words[at + 1..].iter().map(|w| w.to_string()).collect())
}

/// `analyse --pgn - --json` over the cases with a history: each case is a game from its FEN,
/// with one move more so that the final position's line (score, best move) is the last one.
fn run_analyse_games(cases: &[Case], rule: Rule, tables: &str) -> Vec<Vec<Claim>> {
    let games: Vec<(usize, &Case)> = cases
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.moves.is_empty())
        .collect();
    let mut pgn = String::new();
    for (_, case) in &games {
        let mut pos = claims::positions::parse(&case.fen);
        let mut sans = Vec::new();
        for text in &case.moves {
            let m = claims::positions::parse_move(&pos, text);
            sans.push(San::from_move(&pos, m).to_string());
            pos.play_unchecked(m);
        }
        // One move more, so that the final position is analysed before a move: its line gives
        // the claim and the best move.
        if let Some(&m) = pos.legal_moves().first() {
            sans.push(San::from_move(&pos, m).to_string());
        }
        pgn.push_str(&format!(
            "[Event \"audit\"]\n[SetUp \"1\"]\n[FEN \"{}\"]\n\n{} *\n\n",
            case.fen,
            sans.join(" ")
        ));
    }
    let mut out = vec![Vec::new(); cases.len()];
    if games.is_empty() {
        return out;
    }
    let text = run_analyse_process(
        &["--pgn", "-", "--json", "--nodes", "3000", "--hash", "16"],
        rule,
        tables,
        pgn,
    );
    let mut last: HashMap<u64, serde_json::Value> = HashMap::new();
    for line in text.lines() {
        let json: serde_json::Value = serde_json::from_str(line).expect("json");
        if let Some(game) = json["game"].as_u64() {
            last.insert(game, json);
        }
    }
    for (number, (index, _)) in games.iter().enumerate() {
        let Some(json) = last.get(&(number as u64 + 1)) else {
            continue;
        };
        // The final position's line: its score and best move.
        let claimed = match (json["score"]["mate"].as_i64(), json["score"]["cp"].as_i64()) {
            (Some(n), _) => Some(Claimed::Mate(n as i32)),
            (None, Some(cp)) if cp.abs() > i64::from(RESULT_CP) => Some(Claimed::Result(cp > 0)),
            _ => None,
        };
        if let Some(claimed) = claimed {
            out[*index].push(Claim {
                face: "analyse game",
                source: "any",
                claimed,
                best: json["bestmove"].as_str().map(str::to_string),
                text: json.to_string(),
            });
        }
    }
    out
}

/// Runs `syotti analyse ARGS --stalemate RULE --syzygy TABLES` with `input` on standard input.
fn run_analyse_process(args: &[&str], rule: Rule, tables: &str, input: String) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_syotti"))
        .arg("analyse")
        .args(args)
        .args(["--stalemate", rule.uci(), "--syzygy", tables])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("analyse starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        stdin.write_all(input.as_bytes()).expect("analyse reads");
    });
    let output = child.wait_with_output().expect("analyse runs");
    writer.join().expect("writer");
    assert!(output.status.success(), "analyse failed: {output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// `analyse --json` over the cases without history (one process, FENs on standard input).
fn run_analyse(cases: &[Case], rule: Rule, tables: &str) -> Vec<Vec<Claim>> {
    let fens: Vec<&Case> = cases.iter().filter(|c| c.moves.is_empty()).collect();
    let input: String = fens.iter().map(|c| format!("{}\n", c.fen)).collect();
    let text = run_analyse_process(
        &["--fen", "-", "--json", "--nodes", "3000", "--hash", "16"],
        rule,
        tables,
        input,
    );
    let mut answers = text.lines();
    let mut out = Vec::new();
    for case in cases {
        if !case.moves.is_empty() {
            out.push(Vec::new());
            continue;
        }
        let line = answers.next().expect("one line a position");
        let json: serde_json::Value = serde_json::from_str(line).expect("json");
        let mut claims = Vec::new();
        let claimed = match (json["score"]["mate"].as_i64(), json["score"]["cp"].as_i64()) {
            (Some(n), _) => Some(Claimed::Mate(n as i32)),
            (None, Some(cp)) if cp.abs() > i64::from(RESULT_CP) => Some(Claimed::Result(cp > 0)),
            _ => None,
        };
        if let Some(claimed) = claimed {
            claims.push(Claim {
                face: "analyse",
                source: if json["proved"].as_bool() == Some(true) {
                    "proof"
                } else {
                    "search"
                },
                claimed,
                best: json["bestmove"].as_str().map(str::to_string),
                text: line.to_string(),
            });
        }
        out.push(claims);
    }
    out
}

/// `book probe --json` for one case (the book's own rule).
fn run_book_probe(case: &Case) -> Vec<Claim> {
    let mut args = vec![
        "book".to_string(),
        "probe".to_string(),
        "--json".to_string(),
        "--fen".to_string(),
        case.fen.clone(),
    ];
    if !case.moves.is_empty() {
        args.push("--moves".to_string());
        args.extend(case.moves.iter().cloned());
    }
    let output = Command::new(env!("CARGO_BIN_EXE_syotti"))
        .args(&args)
        .output()
        .expect("book probe runs");
    let text = String::from_utf8_lossy(&output.stdout).to_string();
    if !output.status.success() {
        // A position the book refuses as over is no claim.
        return Vec::new();
    }
    let json: serde_json::Value = serde_json::from_str(text.trim()).expect("json");
    let plies = json["plies"].as_u64().map(|p| p as i32);
    // Builds before the table-leaf flag claimed every book distance as a mate distance.
    let exact = json["exact"].as_bool() != Some(false);
    let wins = match json["result"].as_str() {
        Some("win") => true,
        Some("loss") => false,
        _ => return Vec::new(),
    };
    let claimed = match plies {
        Some(p) if exact => Claimed::Mate(if wins { (p + 1) / 2 } else { -(p + 1) / 2 }),
        _ => Claimed::Result(wins),
    };
    vec![Claim {
        face: "book probe",
        source: "book",
        claimed,
        best: json["move"].as_str().map(str::to_string),
        text,
    }]
}

// ---------------------------------------------------------------------------------------------
// The audit.

#[derive(Default)]
struct Tally {
    positions: usize,
    claims: usize,
    judged: usize,
    unjudged: usize,
    false_claims: Vec<String>,
    /// Claims by face and source.
    by_source: HashMap<(&'static str, &'static str), usize>,
}

fn cases_for(rule: Rule, rng: &mut Rng, judge: &Judge) -> Vec<Case> {
    // Pawn tables hold only where the stalemated side wins.
    let pawns = rule == Rule::StalematedSideWins;
    let mut cases = Vec::new();
    for pos in endgames(rng, 700, pawns, (0, 0)) {
        cases.push(Case::simple(Kind::Endgame, &pos));
    }
    for pos in dead_positions(rng, 150) {
        cases.push(Case::simple(Kind::Dead, &pos));
    }
    for pos in endgames(rng, 150, pawns, (95, 99)) {
        cases.push(Case::simple(Kind::FiftyMoves, &pos));
    }
    for pos in hidden_draws(rng, judge, 100, pawns) {
        cases.push(Case::simple(Kind::HiddenDraw, &pos));
    }
    cases
}

fn audit(rule: Rule, seed: u64) -> (HashMap<Kind, Tally>, usize) {
    let tables = tables_path();
    let mut judge = Judge::new(rule, &tables);
    let mut rng = Rng(seed);
    let mut cases = cases_for(rule, &mut rng, &judge);
    let book_rule = rule == Rule::StalematedSideWins;
    // The book and its history cases: under the book's own rule; other rules see them too (the
    // book must not answer there).
    cases.extend(book_history_cases(&mut rng, 60));
    // The examples of the issue: opposite-coloured bishops, either side to move.
    for fen in [
        "8/8/8/8/3b4/8/8/3B4 w - - 0 1",
        "8/8/8/8/3b4/8/8/3B4 b - - 0 1",
        "8/8/8/2b5/8/8/8/3B4 w - - 0 1",
    ] {
        cases.push(Case {
            kind: Kind::Dead,
            fen: fen.to_string(),
            moves: Vec::new(),
        });
    }
    let (uci, follow_ups) = run_uci(&cases, rule, &tables);
    let analyse = run_analyse(&cases, rule, &tables);
    let analyse_games = run_analyse_games(&cases, rule, &tables);
    let mut tallies: HashMap<Kind, Tally> = HashMap::new();
    let mut book_probes = 0;
    let mut items = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let mut claims = uci[i].clone();
        claims.extend(analyse[i].iter().cloned());
        claims.extend(analyse_games[i].iter().cloned());
        // The book CLI on every history case and on a sample of the rest (a process each).
        if book_rule
            && (matches!(
                case.kind,
                Kind::BookHistory | Kind::BookHarmless | Kind::Dead
            ) || i % 10 == 0)
        {
            book_probes += 1;
            claims.extend(run_book_probe(case));
        }
        items.push((case.clone(), claims));
    }
    items.extend(follow_ups);
    for (case, claims) in &items {
        let (pos, counts) = case.replay();
        let tally = tallies.entry(case.kind).or_default();
        tally.positions += 1;
        for claim in claims.iter().cloned() {
            tally.claims += 1;
            *tally
                .by_source
                .entry((claim.face, claim.source))
                .or_insert(0) += 1;
            let best = claim
                .best
                .as_deref()
                .and_then(|b| b.parse::<UciMove>().ok())
                .and_then(|u| u.to_move(&pos).ok());
            let verdict = match claim.claimed {
                Claimed::Mate(n) => {
                    let winner = if n > 0 { pos.turn() } else { !pos.turn() };
                    let plies = 2 * n.unsigned_abs();
                    judge.judge(&pos, winner, plies, &counts, best)
                }
                Claimed::Result(w) => {
                    let winner = if w { pos.turn() } else { !pos.turn() };
                    if counts.is_empty() {
                        judge.judge_result(&pos, winner, &counts)
                    } else {
                        // With a history, the repetition check of `judge` (any distance).
                        judge.judge(&pos, winner, u32::MAX, &counts, best)
                    }
                }
            };
            match verdict {
                Verdict::True => tally.judged += 1,
                Verdict::False => {
                    tally.judged += 1;
                    tally.false_claims.push(format!(
                        "[{}] {} ({}): {} {} ({}) claims {:?}: {}",
                        case.kind.name(),
                        case.fen,
                        case.moves.join(" "),
                        rule.uci(),
                        claim.face,
                        claim.source,
                        claim.claimed,
                        claim.text
                    ));
                }
                Verdict::Unjudged => {
                    tally.unjudged += 1;
                    println!(
                        "unjudged: {} ({}) {} ({}) {:?}",
                        claim.face,
                        claim.source,
                        case.fen,
                        case.moves.join(" "),
                        claim.claimed
                    );
                }
            }
        }
    }
    (tallies, book_probes)
}

fn report(rule: Rule, tallies: &HashMap<Kind, Tally>, book_probes: usize) -> Vec<String> {
    let mut kinds: Vec<_> = tallies.keys().copied().collect();
    kinds.sort();
    println!("claims audit, {}: {book_probes} book probes", rule.uci());
    let mut false_claims = Vec::new();
    for kind in kinds {
        let t = &tallies[&kind];
        println!(
            "  {:<40} positions {:>5}  claims {:>5}  judged {:>5}  unjudged {:>3}  false {:>3}",
            kind.name(),
            t.positions,
            t.claims,
            t.judged,
            t.unjudged,
            t.false_claims.len()
        );
        false_claims.extend(t.false_claims.iter().cloned());
    }
    let mut sources: HashMap<(&str, &str), usize> = HashMap::new();
    for t in tallies.values() {
        for (k, n) in &t.by_source {
            *sources.entry(*k).or_insert(0) += n;
        }
    }
    let mut sources: Vec<_> = sources.into_iter().collect();
    sources.sort();
    let listed: Vec<String> = sources
        .iter()
        .map(|((face, source), n)| format!("{face} from {source}: {n}"))
        .collect();
    println!("  claims by face and source: {}", listed.join(", "));
    for f in &false_claims {
        println!("  FALSE: {f}");
    }
    false_claims
}

#[test]
fn every_proven_claim_agrees_with_the_judge_under_every_convention() {
    let mut false_claims = Vec::new();
    for (i, rule) in Rule::ALL.into_iter().enumerate() {
        let (tallies, probes) = audit(rule, 0x0517_0771 + i as u64);
        false_claims.extend(report(rule, &tallies, probes));
        let unjudged: usize = tallies.values().map(|t| t.unjudged).sum();
        assert_eq!(
            unjudged,
            0,
            "{}: claims the judge could not check",
            rule.uci()
        );
        if rule == Rule::StalematedSideWins {
            // The history check must not refuse what holds: the book still answers after a
            // harmless history.
            let harmless = &tallies[&Kind::BookHarmless];
            let answered = harmless
                .by_source
                .get(&("uci", "book"))
                .copied()
                .unwrap_or(0);
            assert!(
                harmless.positions >= 20 && 2 * answered >= harmless.positions,
                "the book answered {answered} of {} positions with a harmless history",
                harmless.positions
            );
        }
    }
    assert!(
        false_claims.is_empty(),
        "{} false claims:\n{}",
        false_claims.len(),
        false_claims.join("\n")
    );
}

/// The dead draw of the issue is shown as the draw it is, `cp 0`, by every face.
#[test]
fn opposite_coloured_bishops_show_a_draw() {
    for fen in [
        "8/8/8/8/3b4/8/8/3B4 w - - 0 1",
        "8/8/8/8/3b4/8/8/3B4 b - - 0 1",
        "8/8/8/2b5/8/8/8/3B4 w - - 0 1",
    ] {
        let mut engine = Engine::start();
        engine.send("uci");
        engine.until("uciok");
        engine.send(&format!("position fen {fen}"));
        engine.send("go depth 10");
        let lines = engine.until("bestmove");
        let (kind, value) = common::last_score(&lines);
        assert_eq!((kind.as_str(), value), ("cp", 0), "{fen}: {lines:?}");
        let output = Command::new(env!("CARGO_BIN_EXE_syotti"))
            .args(["book", "probe", "--json", "--fen", fen])
            .output()
            .expect("book probe runs");
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(
            !text.contains("\"loss\"") && !text.contains("\"win\""),
            "{fen}: {text}"
        );
    }
}
