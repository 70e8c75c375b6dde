//! The quantity a check measures, written in `data/published.toml` as a small expression over
//! the check's named results: `fork / thread`, `p1 * tn / pn / t1`, `t100 / t10 / 10`,
//! `fork / max(prefork, prethread)`, `threads - one`.
//!
//! Grammar: `product ['-' product]`, a product being `term (('*' | '/') term)*` and a term a
//! number, a name, or `max(...)` / `min(...)` of names; products are evaluated left to right. The
//! one difference is for shares that may be near zero (iowait with one reader), where a ratio
//! would mean nothing. Hand-written because it is forty lines and a parser crate would be the
//! larger dependency.

use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
enum Term {
    Number(f64),
    Name(String),
    Max(Vec<String>),
    Min(Vec<String>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Mul,
    Div,
}

/// A parsed quantity: a product, minus another one when there is a difference.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    first: Term,
    rest: Vec<(Op, Term)>,
    minus: Option<Box<Expr>>,
}

impl Expr {
    pub fn parse(text: &str) -> Result<Expr> {
        let tokens = tokenize(text);
        let mut pos = 0;
        let mut e = product(&tokens, &mut pos).with_context(|| format!("in `{text}`"))?;
        if pos < tokens.len() {
            // `product` stops only at a `-`.
            pos += 1;
            let right = product(&tokens, &mut pos).with_context(|| format!("in `{text}`"))?;
            if pos < tokens.len() {
                bail!("in `{text}`: one difference at most");
            }
            e.minus = Some(Box::new(right));
        }
        Ok(e)
    }

    /// Every name the expression reads.
    pub fn names(&self) -> Vec<&str> {
        let mut out = Vec::new();
        for t in std::iter::once(&self.first).chain(self.rest.iter().map(|(_, t)| t)) {
            match t {
                Term::Number(_) => {}
                Term::Name(n) => out.push(n.as_str()),
                Term::Max(ns) | Term::Min(ns) => out.extend(ns.iter().map(String::as_str)),
            }
        }
        if let Some(m) = &self.minus {
            out.extend(m.names());
        }
        out
    }

    /// Whether the expression is one name alone (its value keeps that result's unit).
    pub fn single_name(&self) -> Option<&str> {
        match (&self.first, self.rest.is_empty() && self.minus.is_none()) {
            (Term::Name(n), true) => Some(n),
            _ => None,
        }
    }

    /// The value with these names bound; `None` when a name is unbound or a division is by a
    /// value that is not positive (a ratio of times needs positive times). A difference may be
    /// negative.
    pub fn eval(&self, values: &BTreeMap<&str, f64>) -> Option<f64> {
        let left = self.eval_product(values)?;
        match &self.minus {
            Some(m) => Some(left - m.eval_product(values)?),
            None => Some(left),
        }
    }

    fn eval_product(&self, values: &BTreeMap<&str, f64>) -> Option<f64> {
        let mut acc = eval_term(&self.first, values)?;
        for (op, t) in &self.rest {
            let v = eval_term(t, values)?;
            acc = match op {
                Op::Mul => acc * v,
                Op::Div if v > 0.0 => acc / v,
                Op::Div => return None,
            };
        }
        acc.is_finite().then_some(acc)
    }
}

fn eval_term(t: &Term, values: &BTreeMap<&str, f64>) -> Option<f64> {
    let get = |n: &String| values.get(n.as_str()).copied();
    match t {
        Term::Number(v) => Some(*v),
        Term::Name(n) => get(n),
        Term::Max(ns) => ns
            .iter()
            .map(get)
            .collect::<Option<Vec<f64>>>()?
            .into_iter()
            .reduce(f64::max),
        Term::Min(ns) => ns
            .iter()
            .map(get)
            .collect::<Option<Vec<f64>>>()?
            .into_iter()
            .reduce(f64::min),
    }
}

fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' || c == '.' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        if !c.is_whitespace() {
            out.push(c.to_string());
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// `term (('*' | '/') term)*`, stopping at the end or at a `-`.
fn product(tokens: &[String], pos: &mut usize) -> Result<Expr> {
    let first = term(tokens, pos)?;
    let mut rest = Vec::new();
    while *pos < tokens.len() {
        let op = match tokens[*pos].as_str() {
            "*" => Op::Mul,
            "/" => Op::Div,
            "-" => break,
            t => bail!("expected *, / or -, found `{t}`"),
        };
        *pos += 1;
        rest.push((op, term(tokens, pos)?));
    }
    Ok(Expr {
        first,
        rest,
        minus: None,
    })
}

fn term(tokens: &[String], pos: &mut usize) -> Result<Term> {
    let Some(tok) = tokens.get(*pos) else {
        bail!("the expression ends where a name or number was expected");
    };
    *pos += 1;
    if let Ok(v) = tok.parse::<f64>() {
        return Ok(Term::Number(v));
    }
    if !tok.chars().next().is_some_and(|c| c.is_alphabetic()) {
        bail!("expected a name or number, found `{tok}`");
    }
    if tokens.get(*pos).map(String::as_str) != Some("(") {
        return Ok(Term::Name(tok.clone()));
    }
    *pos += 1;
    let mut names = Vec::new();
    loop {
        match tokens.get(*pos).map(String::as_str) {
            Some(")") if !names.is_empty() => break,
            Some(",") if !names.is_empty() => *pos += 1,
            Some(n) if n.chars().next().is_some_and(|c| c.is_alphabetic()) => {
                names.push(n.to_string());
                *pos += 1;
            }
            other => bail!("in {tok}(...): unexpected `{}`", other.unwrap_or("end")),
        }
    }
    *pos += 1;
    match tok.as_str() {
        "max" => Ok(Term::Max(names)),
        "min" => Ok(Term::Min(names)),
        f => bail!("unknown function `{f}` (max and min are known)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(pairs: &[(&'static str, f64)]) -> BTreeMap<&'static str, f64> {
        pairs.iter().copied().collect()
    }

    #[test]
    fn ratios_of_ratios_and_constants_evaluate_left_to_right() {
        let e = Expr::parse("p1 * tn / pn / t1").unwrap();
        assert_eq!(e.names(), vec!["p1", "tn", "pn", "t1"]);
        let v = e.eval(&vals(&[("p1", 8.0), ("tn", 3.0), ("pn", 2.0), ("t1", 6.0)]));
        assert_eq!(v, Some(2.0));
        assert_eq!(
            Expr::parse("a / b / 10")
                .unwrap()
                .eval(&vals(&[("a", 100.0), ("b", 2.0)])),
            Some(5.0)
        );
        assert_eq!(Expr::parse("x").unwrap().single_name(), Some("x"));
        assert_eq!(Expr::parse("x / y").unwrap().single_name(), None);
    }

    #[test]
    fn a_difference_of_two_products_may_be_negative() {
        let e = Expr::parse("threads - one").unwrap();
        assert_eq!(e.names(), vec!["threads", "one"]);
        assert_eq!(e.single_name(), None);
        assert_eq!(
            e.eval(&vals(&[("threads", 0.12), ("one", 0.02)]))
                .map(|v| (v * 100.0).round()),
            Some(10.0)
        );
        assert_eq!(
            e.eval(&vals(&[("threads", 0.0), ("one", 0.02)]))
                .map(|v| v < 0.0),
            Some(true)
        );
        let e = Expr::parse("a / b - c").unwrap();
        assert_eq!(
            e.eval(&vals(&[("a", 6.0), ("b", 2.0), ("c", 1.0)])),
            Some(2.0)
        );
        assert!(Expr::parse("a - b - c").is_err());
        assert!(Expr::parse("a -").is_err());
    }

    #[test]
    fn max_and_min_take_lists_of_names() {
        let e = Expr::parse("fork / max(a, b,c)").unwrap();
        let v = e.eval(&vals(&[("fork", 12.0), ("a", 1.0), ("b", 4.0), ("c", 3.0)]));
        assert_eq!(v, Some(3.0));
        assert_eq!(e.names(), vec!["fork", "a", "b", "c"]);
    }

    #[test]
    fn a_missing_name_or_a_non_positive_divisor_gives_no_value() {
        let e = Expr::parse("a / b").unwrap();
        assert_eq!(e.eval(&vals(&[("a", 1.0)])), None);
        assert_eq!(e.eval(&vals(&[("a", 1.0), ("b", 0.0)])), None);
        assert_eq!(e.eval(&vals(&[("a", 1.0), ("b", -2.0)])), None);
    }

    #[test]
    fn malformed_expressions_are_errors() {
        for bad in ["", "a /", "a + b", "max()", "avg(a)", "/ a", "max(a", "- a"] {
            assert!(Expr::parse(bad).is_err(), "{bad}");
        }
    }
}
