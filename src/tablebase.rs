//! Antichess endgame tablebases (Syzygy format, through shakmaty-syzygy).
//!
//! Antichess has two kinds of tables: `.stbw/.stbz` for pawnless material, where no stalemate
//! can arise, so they hold under every stalemate convention; and `.gtbw/.gtbz` for material with
//! pawns, made for lichess rules (the stalemated side wins), which are wrong under the other two
//! conventions. So under `suicide` or stalemate-is-a-draw only pawnless positions are probed.
//!
//! A missing table, or a position with more pieces than the tables, is "no information", never an
//! error that stops a search. WDL decides; DTZ only breaks ties between moves of the same WDL,
//! because it can be one ply off in a few pawn positions, and `KBNvK` has no DTZ table at all (a
//! root of it is not ranked: under the fifty-move rule its result depends on the distance).

use std::{
    path::Path,
    sync::atomic::{AtomicU64, Ordering},
};

use shakmaty::{variant::Antichess, Move, Position, Role};
use shakmaty_syzygy::{Dtz, MaybeRounded, Tablebase, Wdl};
use thiserror::Error;

use crate::rules::{game::FIFTY_MOVE_PLIES, outcome::position_outcome, StalemateRule};

#[derive(Debug, Error)]
pub enum TablebaseError {
    #[error("cannot read tablebase folder '{path}': {reason}")]
    Folder { path: String, reason: String },
    #[error("no tablebase files found in '{0}'")]
    Empty(String),
}

/// A move at the root with what the tables say of it, from the mover's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RankedMove {
    pub m: Move,
    pub wdl: Wdl,
    /// Plies to the next zeroing move after this one (0: the move itself zeroes), if known.
    pub dtz: Option<i32>,
}

pub struct Tablebases {
    tables: Tablebase<Antichess>,
    files: usize,
    hits: AtomicU64,
}

/// The folders of a `SyzygyPath`: `:` separates them on Unix, `;` on Windows.
pub fn split_path(path: &str) -> Vec<&str> {
    let separator = if cfg!(windows) { ';' } else { ':' };
    path.split(separator)
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

impl Tablebases {
    /// Opens every table in the folders of `path`.
    pub fn open(path: &str) -> Result<Tablebases, TablebaseError> {
        let mut tables = Tablebase::new();
        let mut files = 0;
        for folder in split_path(path) {
            if !Path::new(folder).is_dir() {
                return Err(TablebaseError::Folder {
                    path: folder.to_string(),
                    reason: "not a folder".to_string(),
                });
            }
            files += tables
                .add_directory(folder)
                .map_err(|e| TablebaseError::Folder {
                    path: folder.to_string(),
                    reason: e.to_string(),
                })?;
        }
        if files == 0 {
            return Err(TablebaseError::Empty(path.to_string()));
        }
        Ok(Tablebases {
            tables,
            files,
            hits: AtomicU64::new(0),
        })
    }

    pub fn files(&self) -> usize {
        self.files
    }

    /// What was opened, as the interfaces say it: `found N tablebase files, up to M pieces`.
    pub fn summary(&self) -> String {
        format!(
            "found {} tablebase files, up to {} pieces",
            self.files(),
            self.max_pieces()
        )
    }

    /// The largest number of pieces any table holds.
    pub fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    /// Probes made that found an answer.
    pub fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// Whether the tables may be asked about `pos` under `rule` with at most `limit` pieces.
    pub fn covers(&self, pos: &Antichess, rule: StalemateRule, limit: usize) -> bool {
        let pieces = pos.board().occupied().count();
        pieces <= limit.min(self.max_pieces())
            && pieces >= 2
            && (rule == StalemateRule::StalematedSideWins
                || pos.board().by_role(Role::Pawn).is_empty())
    }

    /// WDL of a position reached by a capture or pawn move (halfmove clock 0), for its side to
    /// move; `None` when the tables have nothing to say.
    pub fn wdl_after_zeroing(
        &self,
        pos: &Antichess,
        rule: StalemateRule,
        limit: usize,
    ) -> Option<Wdl> {
        if !self.covers(pos, rule, limit) {
            return None;
        }
        let wdl = self.tables.probe_wdl_after_zeroing(pos).ok()?;
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(wdl)
    }

    /// DTZ of a position for its side to move, if a DTZ table exists.
    pub fn dtz(&self, pos: &Antichess, rule: StalemateRule, limit: usize) -> Option<i32> {
        self.dtz_bound(pos, rule, limit).map(|(dtz, _)| dtz)
    }

    /// DTZ of a position for its side to move, and the most plies the zeroing may really be away
    /// (a table may store DTZ rounded: one ply more).
    fn dtz_bound(&self, pos: &Antichess, rule: StalemateRule, limit: usize) -> Option<(i32, i32)> {
        if !self.covers(pos, rule, limit) {
            return None;
        }
        let probed = self.tables.probe_dtz(pos).ok()?;
        let rounded = matches!(probed, MaybeRounded::Rounded(_));
        let dtz: Dtz = probed.ignore_rounding();
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some((dtz.0, dtz.0.abs() + i32::from(rounded)))
    }

    /// The root moves ranked best first: by WDL, then the fastest win (or slowest loss) by DTZ.
    /// `None` unless every move's result is known.
    ///
    /// The root's halfmove clock counts: after a move that does not zero it, a win whose zeroing
    /// could come later than the hundredth ply is only a cursed win (a draw under the fifty-move
    /// rule), and a loss so far away only a blessed loss. Without a DTZ table the distance is not
    /// known, so such a root is not ranked at all.
    pub fn rank_root(
        &self,
        pos: &Antichess,
        rule: StalemateRule,
        limit: usize,
    ) -> Option<Vec<RankedMove>> {
        if !self.covers(pos, rule, limit) {
            return None;
        }
        let mut ranked = Vec::new();
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let (wdl, dtz) = if let Some(outcome) = position_outcome(&child, rule) {
                // The rules decide at once (a side without pieces, a stalemate, a dead
                // position); the tables hold no such positions, so the rules layer says.
                let wdl = match outcome.score_for(pos.turn()) {
                    1 => Wdl::Win,
                    0 => Wdl::Draw,
                    _ => Wdl::Loss,
                };
                (wdl, Some(0))
            } else if m.is_zeroing() {
                // A zeroing move is 0 plies from zeroing.
                (-self.wdl_after_zeroing(&child, rule, limit)?, Some(0))
            } else {
                // One DTZ probe gives both the WDL and the distance. Without a DTZ table
                // (KBNvK) the distance, and so the result under the clock, is not known.
                let (d, most) = self.dtz_bound(&child, rule, limit)?;
                let wdl = -Wdl::from_dtz(Dtz(d));
                let late = child.halfmoves() as i32 + most > FIFTY_MOVE_PLIES as i32;
                let wdl = match wdl {
                    Wdl::Win if late => Wdl::CursedWin,
                    Wdl::Loss if late => Wdl::BlessedLoss,
                    other => other,
                };
                (wdl, Some(-d))
            };
            ranked.push(RankedMove { m, wdl, dtz });
        }
        ranked.sort_by_key(|r| {
            let speed = match (r.wdl, r.dtz) {
                // Winning: zero as soon as possible.
                (Wdl::Win | Wdl::CursedWin, Some(d)) => d.abs(),
                // Losing: hold out as long as possible.
                (Wdl::Loss | Wdl::BlessedLoss, Some(d)) => -d.abs(),
                _ => i32::MAX / 2,
            };
            (std::cmp::Reverse(r.wdl as i32), speed)
        });
        Some(ranked)
    }
}

impl std::fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebases")
            .field("files", &self.files)
            .field("max_pieces", &self.max_pieces())
            .finish()
    }
}
