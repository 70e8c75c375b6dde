//! The crate's modules form no import cycle: if module A uses module B, B does not use A (the
//! crate root, which declares every module, is left out). Regression: `process` ran the designs
//! while the designs imported `process::reset_child_signals`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The top-level module a file belongs to (`designs/prefork.rs` -> `designs`).
fn module_of(relative: &Path) -> String {
    let first = relative.components().next().expect("a file under src");
    let name = first.as_os_str().to_string_lossy();
    name.trim_end_matches(".rs").to_string()
}

/// Every `crate::NAME` a source text refers to, including `use crate::{a, b::c}` groups.
fn crate_references(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (at, _) in text.match_indices("crate::") {
        let rest = &text[at + "crate::".len()..];
        match rest.strip_prefix('{') {
            Some(group) => names.extend(group_members(group).iter().map(|m| first_ident(m))),
            None => {
                names.insert(first_ident(rest));
            }
        }
    }
    names
}

/// The comma-separated members of a `{...}` group whose opening brace is already consumed.
fn group_members(group: &str) -> Vec<&str> {
    let mut members = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                members.push(group[start..i].trim());
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                members.push(group[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    members
}

fn first_ident(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// Module -> the other modules its files refer to.
fn references(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let modules: BTreeSet<String> = files
        .iter()
        .map(|f| module_of(f.strip_prefix(src).unwrap()))
        .filter(|m| m != "lib")
        .collect();
    let mut refs: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let module = module_of(file.strip_prefix(src).unwrap());
        if module == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        // Comments (doc links among them) name modules without importing them.
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .map(|l| format!("{l}\n"))
            .collect();
        let used = crate_references(&code)
            .into_iter()
            .filter(|n| modules.contains(n) && *n != module)
            .collect::<Vec<_>>();
        refs.entry(module).or_default().extend(used);
    }
    refs
}

#[test]
fn no_two_modules_import_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let refs = references(&src);
    assert!(
        refs["process"].contains("designs"),
        "the scan sees process -> designs: {refs:?}"
    );
    let mut cycles = Vec::new();
    for (a, uses) in &refs {
        for b in uses.iter().filter(|b| a < *b) {
            if refs.get(b).is_some_and(|r| r.contains(a)) {
                cycles.push(format!("{a} <-> {b}"));
            }
        }
    }
    assert!(cycles.is_empty(), "import cycles: {cycles:?}");
}

#[test]
fn the_scan_reads_use_groups() {
    let names =
        crate_references("use crate::{designs, listener::{bind, x}, Ready};\ncrate::conn::go()");
    assert_eq!(
        names.into_iter().collect::<Vec<_>>(),
        ["Ready", "conn", "designs", "listener"]
    );
}
