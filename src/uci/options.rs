//! The UCI options: their declarations for `uci` and how `setoption` changes them.
//!
//! Names are matched case-insensitively (the specification says so); values out of range or of
//! the wrong kind are refused with a reason and the option keeps its value.

use thiserror::Error;

use crate::{
    engine::skill::{Skill, ELO_MAX, ELO_MIN, MAX_LEVEL},
    rules::{StalemateRule, Variant},
    search::Score,
};

pub use crate::engine::settings::{
    CONTEMPT_DEFAULT, CONTEMPT_MAX, HASH_DEFAULT, HASH_MAX, MOVE_OVERHEAD_DEFAULT,
    MOVE_OVERHEAD_MAX, MULTIPV_MAX, STALEMATE_FROM_VARIANT, SYZYGY_PROBE_LIMIT_MAX, THREADS_MAX,
};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineOptions {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub ponder: bool,
    pub move_overhead_ms: u64,
    pub variant: Variant,
    /// `None`: the variant's convention.
    pub stalemate: Option<StalemateRule>,
    pub analyse_mode: bool,
    /// Run the root proof scan before alpha-beta.
    pub proof: bool,
    /// Tablebase folders (empty: none).
    pub syzygy_path: String,
    pub syzygy_probe_limit: usize,
    pub syzygy_50_move_rule: bool,
    /// Centipawns a draw costs the engine's side (not applied in `UCI_AnalyseMode`).
    pub contempt: Score,
    /// Answer from the embedded book of proofs.
    pub book: bool,
    /// A further book of proofs (empty: none).
    pub book_file: String,
    /// The evaluation: `<embedded>` (the network built in), `<linear>` (the hand-made linear
    /// evaluation) or a network file's path.
    pub eval_file: String,
    /// `Skill Level`: 0 (weakest) to `MAX_LEVEL` (full strength).
    pub skill_level: u8,
    /// `UCI_LimitStrength`: play at `UCI_Elo` (this overrides `Skill Level`).
    pub limit_strength: bool,
    pub uci_elo: u32,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            hash_mb: HASH_DEFAULT,
            threads: 1,
            multipv: 1,
            ponder: false,
            move_overhead_ms: MOVE_OVERHEAD_DEFAULT,
            variant: Variant::Antichess,
            stalemate: None,
            analyse_mode: false,
            proof: true,
            syzygy_path: String::new(),
            syzygy_probe_limit: SYZYGY_PROBE_LIMIT_MAX,
            syzygy_50_move_rule: true,
            contempt: CONTEMPT_DEFAULT as Score,
            book: true,
            book_file: String::new(),
            eval_file: EVAL_FILE_EMBEDDED.to_string(),
            skill_level: MAX_LEVEL,
            limit_strength: false,
            uci_elo: ELO_MAX,
        }
    }
}

/// What the session must do after an option changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionEffect {
    Nothing,
    ResizeHash(usize),
    ClearHash,
    RulesChanged,
    /// Open the tables at the new `SyzygyPath`.
    OpenTablebases,
    /// Load the book at the new `BookFile`.
    LoadBook,
    /// Load the evaluation named by the new `EvalFile`.
    LoadNetwork,
}

/// `EvalFile` values that name no file: the network built into the binary, and the hand-made
/// linear evaluation.
pub const EVAL_FILE_EMBEDDED: &str = "<embedded>";
pub const EVAL_FILE_LINEAR: &str = "<linear>";

#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum OptionError {
    #[error("unknown option '{0}'")]
    Unknown(String),
    #[error("option '{name}' needs a value")]
    MissingValue { name: String },
    #[error("bad value '{value}' for option '{name}': {reason}")]
    BadValue {
        name: String,
        value: String,
        reason: String,
    },
}

impl EngineOptions {
    /// The stalemate convention in force.
    pub fn rule(&self) -> StalemateRule {
        self.stalemate.unwrap_or(self.variant.stalemate_rule())
    }

    /// The strength limiter in force, if any: `UCI_Elo` when `UCI_LimitStrength` is on, else
    /// `Skill Level`.
    pub fn skill(&self) -> Option<Skill> {
        if self.limit_strength {
            Some(Skill::from_elo(self.uci_elo))
        } else {
            Skill::new(self.skill_level)
        }
    }

    /// The `option ...` lines answered to `uci`.
    pub fn declarations() -> Vec<String> {
        let variants: String = Variant::ALL
            .iter()
            .map(|v| format!(" var {}", v.name()))
            .collect();
        let rules: String = StalemateRule::ALL
            .iter()
            .map(|r| format!(" var {}", r.name()))
            .collect();
        vec![
            format!("option name Hash type spin default {HASH_DEFAULT} min 1 max {HASH_MAX}"),
            format!("option name Threads type spin default 1 min 1 max {THREADS_MAX}"),
            format!("option name MultiPV type spin default 1 min 1 max {MULTIPV_MAX}"),
            "option name Ponder type check default false".to_string(),
            format!(
                "option name Move Overhead type spin default {MOVE_OVERHEAD_DEFAULT} min 0 max {MOVE_OVERHEAD_MAX}"
            ),
            "option name Clear Hash type button".to_string(),
            format!(
                "option name UCI_Variant type combo default {}{variants}",
                Variant::Antichess.name()
            ),
            format!(
                "option name Stalemate type combo default {STALEMATE_FROM_VARIANT} var {STALEMATE_FROM_VARIANT}{rules}"
            ),
            "option name UCI_AnalyseMode type check default false".to_string(),
            "option name Proof type check default true".to_string(),
            "option name SyzygyPath type string default <empty>".to_string(),
            format!(
                "option name SyzygyProbeLimit type spin default {SYZYGY_PROBE_LIMIT_MAX} min 0 max {SYZYGY_PROBE_LIMIT_MAX}"
            ),
            "option name Syzygy50MoveRule type check default true".to_string(),
            "option name Book type check default true".to_string(),
            "option name BookFile type string default <empty>".to_string(),
            format!("option name EvalFile type string default {EVAL_FILE_EMBEDDED}"),
            format!(
                "option name Contempt type spin default {CONTEMPT_DEFAULT} min 0 max {CONTEMPT_MAX}"
            ),
            format!("option name Skill Level type spin default {MAX_LEVEL} min 0 max {MAX_LEVEL}"),
            "option name UCI_LimitStrength type check default false".to_string(),
            format!("option name UCI_Elo type spin default {ELO_MAX} min {ELO_MIN} max {ELO_MAX}"),
        ]
    }

    /// Applies `setoption name NAME value VALUE`.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<OptionEffect, OptionError> {
        let key = name.trim().to_ascii_lowercase();
        let value_of = || {
            value
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .ok_or_else(|| OptionError::MissingValue {
                    name: name.to_string(),
                })
        };
        let bad = |value: &str, reason: &str| OptionError::BadValue {
            name: name.to_string(),
            value: value.to_string(),
            reason: reason.to_string(),
        };
        // A spin option's value within its range, a check option's true or false.
        let spin = |min: u64, max: u64| {
            let v = value_of()?;
            parse_in_range(v, min, max).map_err(|r| bad(v, &r))
        };
        let check = || {
            let v = value_of()?;
            parse_check(v).map_err(|r| bad(v, &r))
        };
        match key.as_str() {
            "hash" => {
                let mb = spin(1, HASH_MAX as u64)? as usize;
                self.hash_mb = mb;
                Ok(OptionEffect::ResizeHash(mb))
            }
            "threads" => {
                self.threads = spin(1, THREADS_MAX as u64)? as usize;
                Ok(OptionEffect::Nothing)
            }
            "multipv" => {
                self.multipv = spin(1, MULTIPV_MAX as u64)? as usize;
                Ok(OptionEffect::Nothing)
            }
            "move overhead" => {
                self.move_overhead_ms = spin(0, MOVE_OVERHEAD_MAX)?;
                Ok(OptionEffect::Nothing)
            }
            "ponder" => {
                self.ponder = check()?;
                Ok(OptionEffect::Nothing)
            }
            "uci_analysemode" => {
                self.analyse_mode = check()?;
                Ok(OptionEffect::Nothing)
            }
            "proof" => {
                self.proof = check()?;
                Ok(OptionEffect::Nothing)
            }
            "clear hash" => Ok(OptionEffect::ClearHash),
            "book" => {
                self.book = check()?;
                Ok(OptionEffect::Nothing)
            }
            "bookfile" => {
                let v = value.map(str::trim).unwrap_or_default();
                self.book_file = if v == "<empty>" {
                    String::new()
                } else {
                    v.to_string()
                };
                Ok(OptionEffect::LoadBook)
            }
            "evalfile" => {
                let v = value.map(str::trim).unwrap_or_default();
                self.eval_file = if v.is_empty() || v == "<empty>" {
                    EVAL_FILE_EMBEDDED.to_string()
                } else {
                    v.to_string()
                };
                Ok(OptionEffect::LoadNetwork)
            }
            "syzygypath" => {
                let v = value.map(str::trim).unwrap_or_default();
                self.syzygy_path = if v == "<empty>" {
                    String::new()
                } else {
                    v.to_string()
                };
                Ok(OptionEffect::OpenTablebases)
            }
            "syzygyprobelimit" => {
                self.syzygy_probe_limit = spin(0, SYZYGY_PROBE_LIMIT_MAX as u64)? as usize;
                Ok(OptionEffect::Nothing)
            }
            "contempt" => {
                self.contempt = spin(0, CONTEMPT_MAX)? as Score;
                Ok(OptionEffect::Nothing)
            }
            "skill level" => {
                self.skill_level = spin(0, u64::from(MAX_LEVEL))? as u8;
                Ok(OptionEffect::Nothing)
            }
            "uci_limitstrength" => {
                self.limit_strength = check()?;
                Ok(OptionEffect::Nothing)
            }
            "uci_elo" => {
                self.uci_elo = spin(u64::from(ELO_MIN), u64::from(ELO_MAX))? as u32;
                Ok(OptionEffect::Nothing)
            }
            "syzygy50moverule" => {
                self.syzygy_50_move_rule = check()?;
                Ok(OptionEffect::Nothing)
            }
            "uci_variant" => {
                let v = value_of()?;
                self.variant =
                    v.parse()
                        .map_err(|e: crate::rules::convention::ParseVariantError| {
                            bad(v, &e.to_string())
                        })?;
                Ok(OptionEffect::RulesChanged)
            }
            "stalemate" => {
                let v = value_of()?;
                self.stalemate = if v.eq_ignore_ascii_case(STALEMATE_FROM_VARIANT) {
                    None
                } else {
                    Some(v.parse().map_err(
                        |e: crate::rules::convention::ParseStalemateRuleError| {
                            bad(v, &e.to_string())
                        },
                    )?)
                };
                Ok(OptionEffect::RulesChanged)
            }
            _ => Err(OptionError::Unknown(name.to_string())),
        }
    }
}

fn parse_in_range(value: &str, min: u64, max: u64) -> Result<u64, String> {
    let n: u64 = value
        .parse()
        .map_err(|_| "not a whole number".to_string())?;
    if (min..=max).contains(&n) {
        Ok(n)
    } else {
        Err(format!("must be between {min} and {max}"))
    }
}

fn parse_check(value: &str) -> Result<bool, String> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err("expected true or false".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_in_range_are_taken_others_refused() {
        let mut o = EngineOptions::default();
        assert_eq!(o.set("Hash", Some("64")), Ok(OptionEffect::ResizeHash(64)));
        assert_eq!(o.hash_mb, 64);
        assert!(o.set("Hash", Some("0")).is_err());
        assert!(o.set("Hash", Some("65537")).is_err());
        assert!(o.set("Hash", Some("lots")).is_err());
        assert!(o.set("Hash", None).is_err());
        assert_eq!(o.set("Contempt", Some("25")), Ok(OptionEffect::Nothing));
        assert_eq!(o.contempt, 25);
        assert!(o.set("Contempt", Some("-5")).is_err());
        let above_max = (CONTEMPT_MAX + 1).to_string();
        assert!(o.set("Contempt", Some(above_max.as_str())).is_err());
        assert_eq!(o.contempt, 25);
        assert_eq!(o.hash_mb, 64);
        assert!(o.set("move overhead", Some("100")).is_ok());
        assert_eq!(o.move_overhead_ms, 100);
        assert!(o.set("Ponder", Some("maybe")).is_err());
        assert!(o.set("Ponder", Some("TRUE")).is_ok());
        assert!(o.ponder);
        assert_eq!(o.set("Clear Hash", None), Ok(OptionEffect::ClearHash));
        assert!(matches!(
            o.set("Colour", Some("1")),
            Err(OptionError::Unknown(_))
        ));
    }

    #[test]
    fn skill_level_and_elo_choose_the_limiter() {
        let mut o = EngineOptions::default();
        assert_eq!(o.skill(), None);
        o.set("Skill Level", Some("3")).expect("valid");
        assert_eq!(o.skill().map(Skill::level), Some(3));
        assert!(o.set("Skill Level", Some("21")).is_err());
        o.set("UCI_Elo", Some(&ELO_MIN.to_string())).expect("valid");
        assert_eq!(
            o.skill().map(Skill::level),
            Some(3),
            "UCI_Elo alone changes nothing"
        );
        o.set("UCI_LimitStrength", Some("true")).expect("valid");
        assert_eq!(o.skill().map(Skill::level), Some(0));
        assert!(o.set("UCI_Elo", Some(&(ELO_MAX + 1).to_string())).is_err());
        o.set("Skill Level", Some("20")).expect("valid");
        o.set("UCI_LimitStrength", Some("false")).expect("valid");
        assert_eq!(o.skill(), None);
    }

    #[test]
    fn variant_and_stalemate_choose_the_rule() {
        let mut o = EngineOptions::default();
        assert_eq!(o.rule(), StalemateRule::StalematedSideWins);
        o.set("UCI_Variant", Some("suicide")).expect("valid");
        assert_eq!(o.rule(), StalemateRule::FewerPiecesWins);
        o.set("Stalemate", Some("draw")).expect("valid");
        assert_eq!(o.rule(), StalemateRule::Draw);
        o.set("Stalemate", Some("variant")).expect("valid");
        assert_eq!(o.rule(), StalemateRule::FewerPiecesWins);
        assert!(o.set("UCI_Variant", Some("chess")).is_err());
        assert_eq!(o.variant, Variant::Suicide);
    }

    #[test]
    fn declarations_name_every_option() {
        let lines = EngineOptions::declarations().join("\n");
        for name in [
            "Hash",
            "Threads",
            "MultiPV",
            "Ponder",
            "Move Overhead",
            "Clear Hash",
            "UCI_Variant",
            "Stalemate",
            "UCI_AnalyseMode",
            "Skill Level",
            "UCI_LimitStrength",
            "UCI_Elo",
        ] {
            assert!(
                lines.contains(&format!("option name {name} type")),
                "{name}"
            );
        }
        assert!(lines.contains("type combo default antichess var antichess var suicide"));
    }
}
