//! A `--fail-if` threshold as written: `slower>X%`, `faster>X%` or `verdict-changed`, parsed
//! and printed. What breaks it is [`crate::gate`]'s.

use std::fmt;
use std::str::FromStr;

/// Which way a figure moved, for a time or a rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Slower,
    Faster,
}

impl Direction {
    pub fn word(self) -> &'static str {
        match self {
            Direction::Slower => "slower",
            Direction::Faster => "faster",
        }
    }
}

/// One `--fail-if` expression.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Gate {
    /// `slower>X%` or `faster>X%`: X is a percentage of change of the figure (> 0).
    Shift { direction: Direction, percent: f64 },
    /// `verdict-changed`: a claim both runs judged got a different verdict.
    VerdictChanged,
}

/// The expressions `--fail-if` accepts, for error messages and help.
pub const GATE_SYNTAX: &str = "'slower>X%', 'faster>X%' or 'verdict-changed' (e.g. 'slower>10%')";

impl FromStr for Gate {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        if t == "verdict-changed" {
            return Ok(Gate::VerdictChanged);
        }
        let bad = || format!("'{s}' is not a threshold; write {GATE_SYNTAX}");
        let (word, rest) = t.split_once('>').ok_or_else(bad)?;
        let direction = match word.trim() {
            "slower" => Direction::Slower,
            "faster" => Direction::Faster,
            _ => return Err(bad()),
        };
        let number = rest.trim().strip_suffix('%').ok_or_else(|| {
            format!("'{s}': the threshold is a percentage of change; write e.g. 'slower>10%'")
        })?;
        let percent: f64 = number.trim().parse().map_err(|_| bad())?;
        if !(percent.is_finite() && percent > 0.0) {
            return Err(format!(
                "'{s}': the percentage must be above 0 (noise is the interval's job: \
                 'slower>0%' would fail on any significant change; use e.g. 'slower>5%')"
            ));
        }
        if direction == Direction::Faster && percent >= 100.0 {
            return Err(format!(
                "'{s}': a figure cannot fall by 100% or more; use a percentage below 100"
            ));
        }
        Ok(Gate::Shift { direction, percent })
    }
}

impl fmt::Display for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Gate::Shift { direction, percent } => write!(f, "{}>{percent}%", direction.word()),
            Gate::VerdictChanged => f.write_str("verdict-changed"),
        }
    }
}
