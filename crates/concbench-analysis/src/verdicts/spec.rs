//! A claim's rule as written in `data/published.toml`: its checks, each a quantity over named
//! results, a rule with its numbers, and the conditions it is checked under.
//!
//! ```toml
//! [[claim.check]]
//! condition = "creating and destroying one unit"
//! quantity = "fork / thread"
//! rule = "greater"            # greater | less | equivalent | about | at_least | at_most
//! min_effect = 1.15           # greater / less (default 1.15); margin for equivalent (0.15);
//!                             # band = [low, high] for about; bound for at_least / at_most
//! [claim.check.use]
//! fork = { id = "create.fork", params = { parent = "single-threaded" } }
//! thread = { id = "create.thread", params = { stack = "default" } }
//! ```

use super::decide::{Rule, DEFAULT_MARGIN};
use super::expr::Expr;
use anyhow::{bail, Context, Result};
use serde::Deserialize;
use std::collections::BTreeMap;

/// One check of a claim, as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckSpec {
    /// The condition checked; `{key}` is replaced by the value of each `for_each` param.
    pub condition: String,
    /// The quantity (see [`Expr`]).
    pub quantity: String,
    pub rule: String,
    #[serde(default)]
    pub min_effect: Option<f64>,
    #[serde(default)]
    pub margin: Option<f64>,
    #[serde(default)]
    pub band: Option<[f64; 2]>,
    #[serde(default)]
    pub bound: Option<f64>,
    /// For a quantity that is one result alone: the unit the rule's numbers are in.
    #[serde(default)]
    pub unit: Option<String>,
    /// Params whose values each make a condition of their own (a sweep's points).
    #[serde(default)]
    pub for_each: Vec<String>,
    #[serde(rename = "use")]
    pub uses: BTreeMap<String, SelectorSpec>,
}

/// A named result: one selector, or alternatives tried in order.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum SelectorSpec {
    One(Selector),
    FirstOf(Vec<Selector>),
}

impl SelectorSpec {
    pub fn alternatives(&self) -> &[Selector] {
        match self {
            SelectorSpec::One(s) => std::slice::from_ref(s),
            SelectorSpec::FirstOf(v) => v,
        }
    }
}

/// Which number of a result a check reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Take {
    /// The result's own figure: net of its baseline when it subtracts one.
    #[default]
    Reported,
    /// Before the baseline is subtracted (what a seed printed as its raw figure).
    Raw,
    /// The baseline itself (a ring's self-test).
    Baseline,
}

/// A result selected by id and params (every param given must match; the others may be
/// anything), and the number to read from it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Selector {
    pub id: String,
    #[serde(default)]
    pub params: BTreeMap<String, toml::Value>,
    /// Read this counter of each round instead of its value.
    #[serde(default)]
    pub counter: Option<String>,
    #[serde(default)]
    pub take: Take,
}

impl CheckSpec {
    /// The rule with its numbers; errors name the missing number.
    pub fn rule(&self) -> Result<Rule> {
        let need = |v: Option<f64>, what: &str| {
            v.with_context(|| format!("rule `{}` needs `{what}`", self.rule))
        };
        Ok(match self.rule.as_str() {
            "greater" => Rule::Greater {
                min_effect: self.min_effect.unwrap_or(1.0 + DEFAULT_MARGIN),
            },
            "less" => Rule::Less {
                min_effect: self.min_effect.unwrap_or(1.0 + DEFAULT_MARGIN),
            },
            "equivalent" => Rule::Equivalent {
                margin: self.margin.unwrap_or(DEFAULT_MARGIN),
            },
            "about" => {
                let [low, high] = self.band.context("rule `about` needs `band`")?;
                Rule::About { low, high }
            }
            "at_least" => Rule::AtLeast {
                bound: need(self.bound, "bound")?,
            },
            "at_most" => Rule::AtMost {
                bound: need(self.bound, "bound")?,
            },
            other => bail!(
                "unknown rule `{other}` (greater, less, equivalent, about, at_least, at_most)"
            ),
        })
    }

    pub fn quantity(&self) -> Result<Expr> {
        let e = Expr::parse(&self.quantity)?;
        for name in e.names() {
            if !self.uses.contains_key(name) {
                bail!("`{name}` in `{}` is not under `use`", self.quantity);
            }
        }
        Ok(e)
    }

    /// Every selector of the check, all alternatives included.
    pub fn selectors(&self) -> impl Iterator<Item = &Selector> {
        self.uses.values().flat_map(|s| s.alternatives().iter())
    }

    /// Parse-time check of everything the check states, so a malformed rule fails a test rather
    /// than silently judging nothing.
    pub fn validate(&self) -> Result<()> {
        self.rule()?;
        self.quantity()?;
        if self.uses.is_empty() {
            bail!("a check needs at least one result under `use`");
        }
        Ok(())
    }
}
