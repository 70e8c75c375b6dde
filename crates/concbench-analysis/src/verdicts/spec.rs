//! A claim's rule as written in `data/published.toml`: its checks, each a quantity over named
//! results, a rule with its numbers, and the conditions it is checked under.
//!
//! ```toml
//! [[claim.check]]
//! condition = "creating and destroying one unit"
//! quantity = "fork / thread"
//! rule = "greater"            # greater | less | equivalent | about | at_least | at_most
//! min_effect = 1.05           # greater / less; margin for equivalent; band = [low, high]
//!                             # for about; bound for at_least / at_most — always stated
//! why = "「创建销毁...速度慢」(\"slow to create\"): a plain order, so ..."
//! article = [                  # every figure the article printed for the check, each named
//!   { values = { fork = 8.684, thread = 0.661 }, from = "S0's 100,000-unit tables" },
//! ]
//! [claim.check.use]
//! fork = { id = "create.fork", params = { parent = "single-threaded" } }
//! thread = { id = "create.thread", params = { stack = "default" } }
//! ```
//!
//! Every number of a rule is stated with the check, never defaulted, and `why` argues it from
//! the article's words, quoted. `article` holds the article's own figures for the check's names
//! — one set, or a list with one set per figure the article printed (a COUNT, a column), each
//! named by `from` — and the rule applied to each set must give the article's own conclusion
//! (`expect`, default confirmed), which a test requires of every claim (`article_figures` on the
//! claim says why a claim has none, or why a printed figure does not apply). `decides = false`
//! shows a check and its decision beside the verdict without letting it decide (an absolute time
//! from the article's machine, with this machine's ratio to it; a figure the article did not
//! draw a conclusion from).
//!
//! Two optional parts say how far a check's evidence reaches:
//! * `facet = "creation"`: checks sharing a facet measure one thing by different methods (the
//!   article's own program, concbench's units). The first of them in file order that has
//!   evidence decides; the others are judged and shown beside it, never deciding, and a
//!   disagreement is said.
//! * `[[claim.check.guard]]`: a counter of a named result that must lie within a bound for the
//!   check to mean what it says (device reads for a "cold" read). Outside it, `effect =
//!   "withhold"` makes the check inconclusive with the guard's sentence; `"qualify"` keeps the
//!   decision and adds the sentence (`{value}` is the counter's median). `every_round = true`:
//!   the bound must hold in every round (a server that levelled in every start), not only for
//!   the median.

use super::decide::Rule;
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
    /// The facet this check measures (`{key}` replaced like the condition); see the module.
    #[serde(default)]
    pub facet: Option<String>,
    /// Counters that must lie within bounds for the check to mean what it says.
    #[serde(default, rename = "guard")]
    pub guards: Vec<Guard>,
    /// Why the rule's numbers are what they are: the article's words, quoted (original and
    /// English), and the argument from them.
    #[serde(default)]
    pub why: Option<String>,
    /// `false`: judged and shown beside the verdict, never deciding it.
    #[serde(default = "yes")]
    pub decides: bool,
    /// concbench's own method standing in for the article's program in the same facet: it
    /// decides only when the article's program was not measured, and then the claim is partly
    /// judged (the verdict rests on a stand-in, not on what the article measured).
    #[serde(default)]
    pub stand_in: bool,
    /// The run's headline comparison: a full run gives this check's base rounds before any
    /// other deciding check's, when the budget has room for them. Why: on a 2-CPU machine a full
    /// run cannot give every verdict six rounds (the servers' first rounds alone, warm-ups
    /// included, took 195 of its 540 s), and cheapest-first always left the dearest, S2's
    /// keep-alive servers, at one round — the comparison most users run concbench for.
    #[serde(default)]
    pub headline: bool,
    /// Only these values of a `for_each` param make conditions (the rule holds for them).
    #[serde(default)]
    pub for_values: BTreeMap<String, Vec<toml::Value>>,
    /// The article's own figures for the check's names, and what they give: one set per figure
    /// the article printed (written as one table or a list of them).
    #[serde(default, deserialize_with = "one_or_many")]
    pub article: Vec<ArticleFigures>,
    /// The article's own figure for a check that shows an absolute time from its machine: the
    /// check says this machine's ratio to it.
    #[serde(default)]
    pub published: Option<f64>,
}

fn yes() -> bool {
    true
}

/// A check's `article`: one set of figures, or a list of them.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<ArticleFigures>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(ArticleFigures),
        Many(Vec<ArticleFigures>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(a) => vec![a],
        OneOrMany::Many(v) => v,
    })
}

/// One set of the article's own figures for a check (one number per name under `use`), in the
/// check's unit, and the decision the rule must give on them.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArticleFigures {
    pub values: BTreeMap<String, f64>,
    /// Where the figures are printed (a table and its row or column): the set's name.
    #[serde(default)]
    pub from: Option<String>,
    /// The decision the article's own figures give under the rule (default: confirmed); a
    /// check the article's figures contradict says so in its `why`.
    #[serde(default)]
    pub expect: Option<String>,
}

/// What a guard does when its counter lies outside its bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GuardEffect {
    /// The check is inconclusive: its evidence does not measure what the claim is about.
    Withhold,
    /// The decision stands, with the guard's sentence beside it.
    Qualify,
}

/// A condition on a counter of one of the check's named results (its median over the rounds).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Guard {
    /// The name (under the check's `use`) whose result carries the counter.
    #[serde(rename = "use")]
    pub name: String,
    pub counter: String,
    #[serde(default)]
    pub at_least: Option<f64>,
    #[serde(default)]
    pub at_most: Option<f64>,
    pub effect: GuardEffect,
    /// The sentence said when the counter is outside the bound; `{value}` is its median.
    pub say: String,
    /// The bound must hold in every round the result's statistics use, not only for the
    /// median: a server that did not level in one of its starts makes the check mean something
    /// else, however many starts did.
    #[serde(default)]
    pub every_round: bool,
}

impl Guard {
    /// Whether `value` lies within the guard's bound.
    pub fn holds(&self, value: f64) -> bool {
        self.at_least.is_none_or(|b| value >= b) && self.at_most.is_none_or(|b| value <= b)
    }
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
    /// Read this counter of each round instead of its value (or the sum of several:
    /// `["voluntary_switches_per_op", "involuntary_switches_per_op"]`, every switch).
    #[serde(default)]
    pub counter: Option<Counter>,
    #[serde(default)]
    pub take: Take,
}

/// One counter, or several summed (a quantity cannot add: its expressions multiply and divide).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Counter {
    One(String),
    Sum(Vec<String>),
}

/// A round's own fact a guard may read as a counter: the CPUs' worth of time other processes
/// used around the round (`Round::interference`).
pub const INTERFERENCE_CPUS: &str = "interference_cpus";

impl Counter {
    /// The counter's value among `counters`; a sum needs every part.
    pub fn read(&self, counters: &BTreeMap<String, f64>) -> Option<f64> {
        match self {
            Counter::One(c) => counters.get(c).copied(),
            Counter::Sum(parts) => parts.iter().map(|c| counters.get(c).copied()).sum(),
        }
    }

    /// The counter's value in `round`: its counters, or a fact of the round itself
    /// ([`INTERFERENCE_CPUS`]).
    pub fn read_round(&self, round: &concbench_core::Round) -> Option<f64> {
        match self {
            Counter::One(c) if c == INTERFERENCE_CPUS => round.interference,
            _ => self.read(&round.counters),
        }
    }
}

impl CheckSpec {
    /// The rule with its numbers; errors name the missing number.
    pub fn rule(&self) -> Result<Rule> {
        let need = |v: Option<f64>, what: &str| {
            v.with_context(|| format!("rule `{}` needs `{what}`", self.rule))
        };
        Ok(match self.rule.as_str() {
            "greater" => Rule::Greater {
                min_effect: need(self.min_effect, "min_effect")?,
            },
            "less" => Rule::Less {
                min_effect: need(self.min_effect, "min_effect")?,
            },
            "equivalent" => Rule::Equivalent {
                margin: need(self.margin, "margin")?,
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

    /// The rule applied to each set of the article's own figures, in order: the set, and its
    /// quantity and decision.
    pub fn on_article_figures(
        &self,
    ) -> Vec<(&ArticleFigures, Result<(f64, concbench_core::VerdictKind)>)> {
        self.article
            .iter()
            .map(|a| (a, self.on_figures(a)))
            .collect()
    }

    fn on_figures(&self, a: &ArticleFigures) -> Result<(f64, concbench_core::VerdictKind)> {
        let q = self.quantity()?;
        let at: BTreeMap<&str, f64> = a.values.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        let v = q
            .eval(&at)
            .with_context(|| format!("`{}` on the article's figures", self.quantity))?;
        Ok((v, super::decide::decide(self.rule()?, Some((v, v)))))
    }

    /// Whether the `for_each` values `fixed` are among those the check is stated for.
    pub fn admits(&self, fixed: &[(String, serde_json::Value)]) -> bool {
        fixed.iter().all(|(k, v)| {
            self.for_values
                .get(k)
                .is_none_or(|vals| vals.iter().any(|t| crate::toml_json::toml_eq_json(t, v)))
        })
    }

    /// Parse-time check of everything the check states, so a malformed rule fails a test rather
    /// than silently judging nothing.
    pub fn validate(&self) -> Result<()> {
        self.rule()?;
        self.quantity()?;
        if self.uses.is_empty() {
            bail!("a check needs at least one result under `use`");
        }
        for a in &self.article {
            if let Some(name) = a
                .values
                .keys()
                .find(|n| !self.uses.contains_key(n.as_str()))
            {
                bail!("article figure `{name}` is not under `use`");
            }
            if a.from.as_deref().is_none_or(|f| f.trim().is_empty()) {
                bail!("a set of the article's figures needs `from`: where it is printed");
            }
        }
        if let Some(k) = self.for_values.keys().find(|k| !self.for_each.contains(k)) {
            bail!("for_values on `{k}`, which is not in for_each");
        }
        for g in &self.guards {
            if !self.uses.contains_key(&g.name) {
                bail!("guard on `{}`, which is not under `use`", g.name);
            }
            if g.at_least.is_none() && g.at_most.is_none() {
                bail!("guard on `{}` needs `at_least` or `at_most`", g.counter);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(extra: &str) -> CheckSpec {
        toml::from_str(&format!(
            "condition = \"c\"\nquantity = \"a\"\nrule = \"at_least\"\nbound = 1.0\n\
             use.a = {{ id = \"x.y\" }}\n{extra}"
        ))
        .unwrap()
    }

    #[test]
    fn a_guard_must_name_a_used_result_and_a_bound() {
        let ok = "[[guard]]\nuse = \"a\"\ncounter = \"k\"\nat_least = 0.9\neffect = \"withhold\"\nsay = \"s\"";
        let c = check(ok);
        c.validate().unwrap();
        assert!(c.guards[0].holds(0.95) && !c.guards[0].holds(0.5));
        let unknown = ok.replace("use = \"a\"", "use = \"b\"");
        assert!(check(&unknown).validate().is_err());
        let unbounded = ok.replace("at_least = 0.9\n", "");
        assert!(check(&unbounded).validate().is_err());
    }

    #[test]
    fn the_articles_figures_are_one_set_or_a_list_each_named_where_printed() {
        let one = check("article = { values = { a = 2.0 }, from = \"table 1\" }");
        one.validate().unwrap();
        assert_eq!(one.article.len(), 1);
        let many = check(
            "article = [{ values = { a = 2.0 }, from = \"row 1\" }, \
             { values = { a = 0.5 }, from = \"row 2\", expect = \"refuted\" }]",
        );
        many.validate().unwrap();
        let decisions: Vec<_> = many
            .on_article_figures()
            .into_iter()
            .map(|(set, on)| (set.from.clone().unwrap(), on.unwrap().1))
            .collect();
        use concbench_core::VerdictKind::*;
        assert_eq!(
            decisions,
            [
                ("row 1".to_string(), Confirmed),
                ("row 2".to_string(), Refuted)
            ]
        );
        // A set without its name cannot be told from the others.
        let unnamed = check("article = [{ values = { a = 2.0 } }]");
        assert!(unnamed.validate().unwrap_err().to_string().contains("from"));
    }

    #[test]
    fn a_counter_may_be_a_sum_of_counters() {
        let c = check("").uses["a"].alternatives()[0].clone();
        assert!(c.counter.is_none());
        let sel: Selector = toml::from_str("id = \"x.y\"\ncounter = [\"v\", \"i\"]").unwrap();
        let counters: BTreeMap<String, f64> =
            [("v".to_string(), 0.5), ("i".to_string(), 0.25)].into();
        assert_eq!(sel.counter.as_ref().unwrap().read(&counters), Some(0.75));
        let one: BTreeMap<String, f64> = [("v".to_string(), 0.5)].into();
        assert_eq!(
            sel.counter.unwrap().read(&one),
            None,
            "a sum needs every part"
        );
    }
}
