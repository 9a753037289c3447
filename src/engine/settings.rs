//! The engine's settings that both protocols offer, with their defaults and limits: one place,
//! so that a UCI option and its XBoard twin cannot drift apart.

pub const HASH_DEFAULT: usize = 16;
pub const HASH_MAX: usize = 65_536;
pub const THREADS_MAX: usize = 256;
pub const MULTIPV_MAX: usize = 256;
pub const MOVE_OVERHEAD_DEFAULT: u64 = 30;
pub const MOVE_OVERHEAD_MAX: u64 = 5_000;
/// Syzygy tables go up to 7 pieces.
pub const SYZYGY_PROBE_LIMIT_MAX: usize = 7;
/// Contempt in centipawns: how much a draw costs the engine's side. Against Fairy-Stockfish 11.1
/// at 10+0.1 (200 games per variant, dev openings, tables on): 0 scored 80.5% in antichess and
/// 82.4% in suicide (400 games); 100 scored 84.0% and 82.5%; 200 scored 83.0% and 85.75%.
/// Both cut the draws; 200 did best on the two together. 300 cut them further in antichess (10
/// of 200) but lost more games: 82.0% (+159 =10 -31). (40 had shown nothing at 5+0.05 over 100
/// games.) Against the newest Fairy-Stockfish (c19b5f6c, suicide, 10+0.1, 200 games, Hash 256),
/// 0 scored 62.7% (+109 =33 -58) where 200 had scored 61.3% (+110 =25 -65): more draws, fewer
/// losses, no clear difference; at 60+0.6 (30 games only) 0 scored 56.7% (+16 =2 -12) where 200
/// has scored 58.0% (+100 =32 -68) over 200 games. So 200 stays. Also tried: a draw that the
/// opponent's move makes scored 0 rather than +200 for it (so that the search stops assuming
/// that the opponent takes any repetition worth less than two pawns to it): 49.0% in self-play
/// (200 games, 2+0.02, suicide) and 59.8% (+104 =31 -65) against the newest Fairy-Stockfish
/// (suicide, 10+0.1, 200 games): no gain, not kept. Analysis (`UCI_AnalyseMode`,
/// `syotti analyse`) always uses 0.
pub const CONTEMPT_DEFAULT: u64 = 200;
pub const CONTEMPT_MAX: u64 = 1_000;
/// The value of the `Stalemate` option that follows the variant's own convention.
pub const STALEMATE_FROM_VARIANT: &str = "variant";
