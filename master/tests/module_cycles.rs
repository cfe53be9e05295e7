//! The top-level modules of `master/src` depend on each other without cycles, so that they
//! can move into crates of their own: a crate cannot depend on a crate that depends on it.
//! Reads the sources (no build information needed): every `crate::x` path, and every
//! `super::` path that climbs out of its top-level module, is an edge from the module it is
//! written in to `x`. Comments, doc comments (with their intra-doc links), string and
//! character literals do not count.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Modules that stay one crate: an FMU's import and its instances need each other.
const MERGED: &[(&str, &str)] = &[("import", "instance")];

/// Where an edge was first seen: file (relative to `src`) and line.
type Site = (String, usize);

#[test]
fn top_level_modules_have_no_cycles() {
    let master = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut roots = vec![master.join("src")];
    let crates = std::fs::read_dir(master.join("crates")).expect("master/crates is readable");
    roots.extend(crates.map(|entry| entry.unwrap().path().join("src")));
    roots.sort();
    let failures: Vec<String> = roots.iter().filter_map(|src| check(src).err()).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Checks the top-level modules of the crate whose sources are `src` (`lib.rs` at its root):
/// the message lists the cycles and every edge where it fails.
fn check(src: &Path) -> Result<(), String> {
    let root = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs is readable");
    let modules = declared_modules(&root);
    let reexports = root_reexports(&root);

    let mut edges: BTreeMap<(String, String), Site> = BTreeMap::new();
    for file in rust_files(src) {
        let relative = file.strip_prefix(src).unwrap();
        let Some(module) = module_path(relative) else {
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap();
        for (target, line) in referenced_modules(&text, &module, &modules, &reexports) {
            if target != module[0] {
                let site = (relative.display().to_string(), line);
                edges
                    .entry((module[0].clone(), target))
                    .and_modify(|first| *first = first.clone().min(site.clone()))
                    .or_insert(site);
            }
        }
    }

    let mut listing = format!(
        "{}: edges found (first place each is written):\n",
        src.display()
    );
    for ((from, to), (file, line)) in &edges {
        let _ = writeln!(listing, "  {from} -> {to}  ({file}:{line})");
    }
    // Shown with `--nocapture`: the graph the crates can be cut along.
    println!("{listing}");
    let cycles = cycles(&modules, &edges);
    if cycles.is_empty() {
        return Ok(());
    }
    let mut message = String::from("the top-level modules depend on each other in cycles:\n");
    for cycle in &cycles {
        let _ = writeln!(message, "  {}", cycle.join(" -> "));
    }
    Err(format!("{message}{listing}"))
}

/// The reader itself sees through comments, literals, groups and `super`.
#[test]
fn reader_finds_paths_in_code_only() {
    let modules: BTreeSet<String> = ["a", "b", "c", "d", "e", "f", "g"]
        .into_iter()
        .map(String::from)
        .collect();
    let reexports = BTreeMap::from([("Thing".to_string(), "g".to_string())]);
    let text = r####"
        //! See [`crate::x`] and crate::x in prose.
        /// A link to [`crate::c::Item`].
        use crate::{b::One, c::{Two, Three}};
        use super::super::d::Four;
        /* crate::x /* nested crate::x */ still a comment crate::x */
        fn f() -> crate::Thing {
            let _ = "crate::x::in_a_string";
            let _ = r#"crate::x"#;
            let _ = 'c';
            let _: &'static str = "";
            mod inner {
                use super::super::super::e::Five;
            }
            crate::f::call();
            // crate::x
        }
    "####;
    let module = vec!["a".to_string(), "sub".to_string()];
    let found: BTreeSet<String> = referenced_modules(text, &module, &modules, &reexports)
        .into_iter()
        .map(|(target, _)| target)
        .collect();
    let expected: BTreeSet<String> = ["b", "c", "d", "e", "f", "g"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(found, expected);
}

/// The modules `lib.rs` declares with `mod x;` or `pub mod x;`.
fn declared_modules(root: &str) -> BTreeSet<String> {
    let tokens = tokens(&code_only(root));
    let mut modules = BTreeSet::new();
    for window in tokens.windows(3) {
        if window[0].text == "mod" && window[2].text == ";" {
            modules.insert(window[1].text.clone());
        }
    }
    modules
}

/// The items `lib.rs` re-exports (`pub use error::{Error, Result};`), by the module they
/// come from: `crate::Error` is a path into `error`.
fn root_reexports(root: &str) -> BTreeMap<String, String> {
    let tokens = tokens(&code_only(root));
    let mut names = BTreeMap::new();
    let mut at = 0;
    while at < tokens.len() {
        if tokens[at].text == "use" {
            let module = tokens
                .get(at + 1)
                .map(|t| t.text.clone())
                .unwrap_or_default();
            let mut end = at + 1;
            while end < tokens.len() && tokens[end].text != ";" {
                end += 1;
            }
            // The names a `use` brings in are the identifiers before `,`, `}` or `;`, or
            // after `as`.
            for index in at + 2..end {
                let next = tokens.get(index + 1).map(|t| t.text.as_str());
                if is_identifier(&tokens[index].text)
                    && matches!(next, Some(",") | Some("}") | Some(";"))
                {
                    names.insert(tokens[index].text.clone(), module.clone());
                }
            }
            at = end;
        }
        at += 1;
    }
    names
}

/// Every `.rs` file under `dir`, in a stable order.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push(path);
        }
    }
    files
}

/// The module a file under `src` holds, as its path from the crate root; `None` for the crate
/// roots `lib.rs` and `main.rs` (the binary is a crate of its own).
fn module_path(relative: &Path) -> Option<Vec<String>> {
    let mut path: Vec<String> = relative
        .components()
        .map(|component| component.as_os_str().to_string_lossy().into_owned())
        .collect();
    let file = path.pop()?;
    let stem = file.strip_suffix(".rs")?;
    if stem != "mod" {
        path.push(stem.to_string());
    }
    if path.is_empty() || (path.len() == 1 && matches!(path[0].as_str(), "lib" | "main")) {
        return None;
    }
    Some(path)
}

/// The top-level modules (and the lines) that the code of module `module` names through
/// `crate::` or through `super::` climbing to the crate root.
fn referenced_modules(
    text: &str,
    module: &[String],
    modules: &BTreeSet<String>,
    reexports: &BTreeMap<String, String>,
) -> Vec<(String, usize)> {
    let tokens = tokens(&code_only(text));
    let mut found = Vec::new();
    // Inline modules (`mod tests { .. }`) deepen the path `super` climbs from: each is kept
    // with the brace depth inside it.
    let mut inline: Vec<usize> = Vec::new();
    let mut depth = 0;
    let mut at = 0;
    while at < tokens.len() {
        let token = &tokens[at];
        match token.text.as_str() {
            "{" => depth += 1,
            "}" => {
                if inline.last() == Some(&depth) {
                    inline.pop();
                }
                depth -= 1;
            }
            "mod" if tokens.get(at + 2).is_some_and(|t| t.text == "{") => {
                inline.push(depth + 1);
            }
            "crate" if !follows_dollar(&tokens, at) && is_path_separator(&tokens, at + 1) => {
                for first in first_segments(&tokens, at + 2) {
                    if let Some(target) = resolve(&first, modules, reexports) {
                        found.push((target, token.line));
                    }
                }
            }
            "super" if !is_path_separator(&tokens, at.wrapping_sub(1)) => {
                let mut climbs = 0;
                let mut next = at;
                while tokens.get(next).is_some_and(|t| t.text == "super")
                    && is_path_separator(&tokens, next + 1)
                {
                    climbs += 1;
                    next += 2;
                }
                if climbs > 0 && climbs == module.len() + inline.len() {
                    for first in first_segments(&tokens, next) {
                        if let Some(target) = resolve(&first, modules, reexports) {
                            found.push((target, token.line));
                        }
                    }
                }
                at = next.max(at + 1);
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    found
}

/// The top-level module a first path segment below the crate root stands for.
fn resolve(
    first: &str,
    modules: &BTreeSet<String>,
    reexports: &BTreeMap<String, String>,
) -> Option<String> {
    if modules.contains(first) {
        Some(first.to_string())
    } else {
        reexports
            .get(first)
            .filter(|module| modules.contains(*module))
            .cloned()
    }
}

/// The first segments of the path or `use` group starting at token `at`:
/// `x::y` gives `x`, `{x::y, z::{..}}` gives `x` and `z`.
fn first_segments(tokens: &[Token], at: usize) -> Vec<String> {
    match tokens.get(at).map(|t| t.text.as_str()) {
        Some("{") => {
            let mut firsts = Vec::new();
            let mut depth = 0;
            let mut expect_first = true;
            for token in &tokens[at..] {
                match token.text.as_str() {
                    "{" => {
                        depth += 1;
                        expect_first = depth == 1;
                    }
                    "}" => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    "," => expect_first = depth == 1,
                    text => {
                        if expect_first && is_identifier(text) {
                            firsts.push(text.to_string());
                        }
                        expect_first = false;
                    }
                }
            }
            firsts
        }
        Some(text) if is_identifier(text) => vec![text.to_string()],
        _ => Vec::new(),
    }
}

fn follows_dollar(tokens: &[Token], at: usize) -> bool {
    at > 0 && tokens[at - 1].text == "$"
}

fn is_path_separator(tokens: &[Token], at: usize) -> bool {
    tokens.get(at).is_some_and(|t| t.text == "::")
}

fn is_identifier(text: &str) -> bool {
    text.starts_with(|c: char| c.is_alphabetic() || c == '_')
}

/// One token of code: an identifier or keyword, `::`, or a single punctuation character.
struct Token {
    text: String,
    line: usize,
}

/// The tokens of `code` (already without comments and literals) that paths are made of.
fn tokens(code: &str) -> Vec<Token> {
    let chars: Vec<char> = code.chars().collect();
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        if c == '\n' {
            line += 1;
            at += 1;
        } else if c.is_whitespace() {
            at += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = at;
            while at < chars.len() && (chars[at].is_alphanumeric() || chars[at] == '_') {
                at += 1;
            }
            let word: String = chars[start..at].iter().collect();
            // A raw identifier `r#type` is the identifier `type`.
            if word == "r" && chars.get(at) == Some(&'#') {
                at += 1;
                continue;
            }
            tokens.push(Token { text: word, line });
        } else if c == ':' && chars.get(at + 1) == Some(&':') {
            tokens.push(Token {
                text: "::".to_string(),
                line,
            });
            at += 2;
        } else {
            tokens.push(Token {
                text: c.to_string(),
                line,
            });
            at += 1;
        }
    }
    tokens
}

/// `text` with comments (doc comments included) and the contents of string and character
/// literals blanked out; line breaks stay, so lines still count.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut code = String::with_capacity(text.len());
    let blank = |code: &mut String, skipped: &[char]| {
        for &c in skipped {
            code.push(if c == '\n' { '\n' } else { ' ' });
        }
    };
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        let next = chars.get(at + 1).copied();
        let start = at;
        if c == '/' && next == Some('/') {
            while at < chars.len() && chars[at] != '\n' {
                at += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while at < chars.len() {
                if chars[at] == '/' && chars.get(at + 1) == Some(&'*') {
                    depth += 1;
                    at += 2;
                } else if chars[at] == '*' && chars.get(at + 1) == Some(&'/') {
                    depth -= 1;
                    at += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    at += 1;
                }
            }
        } else if let Some(hashes) = raw_string_start(&chars, at) {
            // `r#"..."#` (also `br`, `cr`): ends at a quote followed by as many `#`.
            at += chars[at..].iter().position(|&c| c == '"').unwrap() + 1;
            while at < chars.len() {
                if chars[at] == '"' && chars[at + 1..].iter().take(hashes).all(|&c| c == '#') {
                    at += 1 + hashes;
                    break;
                }
                at += 1;
            }
        } else if c == '"' {
            at += 1;
            while at < chars.len() && chars[at] != '"' {
                at += if chars[at] == '\\' { 2 } else { 1 };
            }
            at += 1;
        } else if c == '\'' && is_char_literal(&chars, at) {
            at += 1;
            while at < chars.len() && chars[at] != '\'' {
                at += if chars[at] == '\\' { 2 } else { 1 };
            }
            at += 1;
        } else {
            code.push(c);
            at += 1;
            continue;
        }
        let end = at.min(chars.len());
        blank(&mut code, &chars[start..end]);
        at = end;
    }
    code
}

/// The number of `#` of the raw string literal starting at `at`, if one starts there.
fn raw_string_start(chars: &[char], at: usize) -> Option<usize> {
    if at > 0 && (chars[at - 1].is_alphanumeric() || chars[at - 1] == '_') {
        return None;
    }
    let mut index = at;
    if matches!(chars.get(index), Some('b') | Some('c')) {
        index += 1;
    }
    if chars.get(index) != Some(&'r') {
        return None;
    }
    index += 1;
    let hashes = chars[index..].iter().take_while(|&&c| c == '#').count();
    (chars.get(index + hashes) == Some(&'"')).then_some(hashes)
}

/// Whether the `'` at `at` opens a character literal (`'a'`, `'\n'`) rather than a lifetime
/// or label (`'a`, `'static`).
fn is_char_literal(chars: &[char], at: usize) -> bool {
    match chars.get(at + 1) {
        Some('\\') => true,
        Some(_) => chars.get(at + 2) == Some(&'\''),
        None => false,
    }
}

/// The cycles among the modules, each as a closed walk `a -> b -> .. -> a`, after merging the
/// modules of [`MERGED`].
fn cycles(
    modules: &BTreeSet<String>,
    edges: &BTreeMap<(String, String), Site>,
) -> Vec<Vec<String>> {
    let node = |name: &str| -> String {
        MERGED
            .iter()
            .find(|(a, b)| name == *a || name == *b)
            .map_or(name.to_string(), |(a, b)| format!("{a}+{b}"))
    };
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for module in modules {
        graph.entry(node(module)).or_default();
    }
    for (from, to) in edges.keys() {
        let (from, to) = (node(from), node(to));
        if from != to {
            graph.entry(from).or_default().insert(to);
        }
    }
    // One cycle through each module that can reach itself, reported once per set of modules.
    let mut seen: BTreeSet<BTreeSet<String>> = BTreeSet::new();
    let mut cycles = Vec::new();
    for start in graph.keys() {
        if let Some(cycle) = shortest_cycle(&graph, start) {
            let members: BTreeSet<String> = cycle.iter().cloned().collect();
            if seen.insert(members) {
                cycles.push(cycle);
            }
        }
    }
    cycles
}

/// The shortest walk from `start` back to itself, by breadth-first search.
fn shortest_cycle(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(current) = queue.pop_front() {
        for next in &graph[current] {
            if next == start {
                let mut walk = vec![start.to_string()];
                let mut back = current;
                while back != start {
                    walk.push(back.to_string());
                    back = parent[back];
                }
                walk.push(start.to_string());
                let last = walk.len() - 1;
                walk[1..last].reverse();
                return Some(walk);
            }
            if !parent.contains_key(next.as_str()) && next != start {
                parent.insert(next, current);
                queue.push_back(next);
            }
        }
    }
    None
}
