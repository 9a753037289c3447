//! Variant names and the stalemate convention.

use std::{fmt, str::FromStr};

use thiserror::Error;

/// What happens to a side that is to move and has no legal move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StalemateRule {
    /// The stalemated side wins (lichess `antichess`, the default).
    #[default]
    StalematedSideWins,
    /// Stalemate is a draw.
    Draw,
    /// The side with fewer pieces wins, equal counts draw (FICS `suicide`).
    FewerPiecesWins,
}

impl StalemateRule {
    pub const ALL: [StalemateRule; 3] = [
        StalemateRule::StalematedSideWins,
        StalemateRule::Draw,
        StalemateRule::FewerPiecesWins,
    ];

    /// The name used on the command line and in the UCI option.
    pub const fn name(self) -> &'static str {
        match self {
            StalemateRule::StalematedSideWins => "stalemated-side-wins",
            StalemateRule::Draw => "draw",
            StalemateRule::FewerPiecesWins => "fewer-pieces-wins",
        }
    }
}

impl fmt::Display for StalemateRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Error, PartialEq, Eq)]
#[error("unknown stalemate rule '{0}' (expected stalemated-side-wins, draw or fewer-pieces-wins)")]
pub struct ParseStalemateRuleError(pub String);

impl FromStr for StalemateRule {
    type Err = ParseStalemateRuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        StalemateRule::ALL
            .into_iter()
            .find(|r| r.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ParseStalemateRuleError(s.to_string()))
    }
}

/// The variants Syotti plays, by the names Cute Chess and lichess use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Variant {
    /// lichess antichess: the stalemated side wins.
    #[default]
    Antichess,
    /// FICS suicide: on stalemate the side with fewer pieces wins.
    Suicide,
}

impl Variant {
    pub const ALL: [Variant; 2] = [Variant::Antichess, Variant::Suicide];

    pub const fn name(self) -> &'static str {
        match self {
            Variant::Antichess => "antichess",
            Variant::Suicide => "suicide",
        }
    }

    /// The stalemate convention the variant is played with.
    pub const fn stalemate_rule(self) -> StalemateRule {
        match self {
            Variant::Antichess => StalemateRule::StalematedSideWins,
            Variant::Suicide => StalemateRule::FewerPiecesWins,
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Error, PartialEq, Eq)]
#[error("unknown variant '{0}' (expected antichess or suicide)")]
pub struct ParseVariantError(pub String);

impl FromStr for Variant {
    type Err = ParseVariantError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "antichess" | "giveaway" => Ok(Variant::Antichess),
            "suicide" => Ok(Variant::Suicide),
            _ => Err(ParseVariantError(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for rule in StalemateRule::ALL {
            assert_eq!(rule.name().parse::<StalemateRule>(), Ok(rule));
        }
        for variant in Variant::ALL {
            assert_eq!(variant.name().parse::<Variant>(), Ok(variant));
        }
        assert!("chess".parse::<Variant>().is_err());
        assert!("".parse::<StalemateRule>().is_err());
        assert_eq!(
            Variant::Suicide.stalemate_rule(),
            StalemateRule::FewerPiecesWins
        );
    }
}
