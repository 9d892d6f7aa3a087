//! The tool's source in layers: every file of `cli/src/` imports only
//! from its own layer or below, and no files import each other round a
//! circle. The layers are drawn once, in docs/layout.md ("The tool's
//! layers"), and read from there; the imports are read from the source:
//! `use crate::…` and `use super::…` trees and every inline `crate::…` or
//! `super::…` path, outside comments and strings. A file's unit tests
//! (its `#[cfg(test)] mod tests`) are not product code and may use any
//! layer as their fixture (the real runtimes' rules); a module's use of
//! its own ancestors (`super::Model` in a runtime's module) is its
//! namespace, not an import. The same reading keeps the functions short:
//! no product function longer than `MAX_FUNCTION_LINES`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The longest a product function may be, from its `fn` line to its
/// closing brace.
const MAX_FUNCTION_LINES: usize = 80;

/// A module (`runtimes::crio`, `main` for the crate root) and the modules
/// it imports.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// The layers, bottom first: each its name and the paths it holds.
type Layers = Vec<(String, Vec<String>)>;

/// Each file below `cli/src/` and its text.
type Files = BTreeMap<String, String>;

/// Every `.rs` file under `dir`, by its path below `dir` (`images/ctr_listing.rs`).
fn sources(dir: &Path) -> Files {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(at) = todo.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/");
                out.insert(relative, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    out
}

/// The module a file is: `runtimes/mod.rs` is `runtimes`, `main.rs` the
/// crate root, `main`.
fn module_of(file: &str) -> String {
    let stem = file.strip_suffix(".rs").unwrap();
    let stem = stem.strip_suffix("/mod").unwrap_or(stem);
    match stem {
        "main" | "lib" => "main".to_string(),
        _ => stem.replace('/', "::"),
    }
}

/// `source` with comments, strings and character literals blanked (each
/// byte a space, newlines kept, so lines still count).
fn code_only(source: &str) -> String {
    let b = source.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |n| i + n);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = source[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2);
                blank(&mut out, i, end);
                i = end;
            }
            b'r' if matches!(b.get(i + 1), Some(b'"' | b'#')) && (i == 0 || !is_ident(b[i - 1])) => {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let close = format!("\"{}", "#".repeat(hashes));
                let start = i + 2 + hashes;
                let end = source[start..].find(&close).map_or(b.len(), |n| start + n + close.len());
                blank(&mut out, i, end);
                i = end;
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                blank(&mut out, i, (j + 1).min(b.len()));
                i = j + 1;
            }
            // A character literal ('x', '\n', '"'), not a lifetime ('a).
            b'\'' if b.get(i + 1) == Some(&b'\\') || b.get(i + 2) == Some(&b'\'') => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'\'' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                blank(&mut out, i, (j + 1).min(b.len()));
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    String::from_utf8(out).unwrap()
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The end of the block whose `{` is at `open`.
fn block_end(code: &str, open: usize) -> usize {
    let mut depth = 0;
    for (i, c) in code[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return open + i + 1;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// `code` without its unit tests: each `#[cfg(test)]` followed by a
/// `mod NAME {` block, blanked.
fn without_test_modules(code: &str) -> String {
    let mut out = code.to_string();
    let mut from = 0;
    while let Some(at) = out[from..].find("#[cfg(test)]").map(|n| from + n) {
        let after = at + "#[cfg(test)]".len();
        let rest = out[after..].trim_start();
        let starts_module = rest.starts_with("mod ") && {
            let head: String = rest.chars().take_while(|&c| c != ';' && c != '{').collect();
            rest[head.len()..].starts_with('{')
        };
        if starts_module {
            let open = after + out[after..].find('{').unwrap();
            let end = block_end(&out, open);
            let blanked: String = out[at..end].chars().map(|c| if c == '\n' { '\n' } else { ' ' }).collect();
            out.replace_range(at..end, &blanked);
            from = end;
        } else {
            from = after;
        }
    }
    out
}

/// The paths a use tree names, its braces expanded: `a::{b, c::{d}}` is
/// `a::b` and `a::c::d`.
fn expand(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else { return vec![tree] };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.len() - 1];
    let (mut items, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items.into_iter().filter(|i| !i.is_empty()).flat_map(expand).map(|p| format!("{prefix}{p}")).collect()
}

/// The paths `code` names from the crate root or a parent: its use trees
/// and its inline paths, each as written (`crate::images::Image`,
/// `super::Model`).
fn paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code.to_string();
    // Use trees first, blanked once read.
    let mut from = 0;
    while let Some(at) = rest[from..].find("use ").map(|n| from + n) {
        let word_start = at == 0 || !is_ident(rest.as_bytes()[at - 1]);
        let end = rest[at..].find(';').map_or(rest.len(), |n| at + n);
        let tree = rest[at + 4..end].trim();
        if word_start && (tree.starts_with("crate::") || tree.starts_with("super::")) {
            out.extend(expand(tree));
            let blanked: String = rest[at..end].chars().map(|c| if c == '\n' { '\n' } else { ' ' }).collect();
            rest.replace_range(at..end, &blanked);
        }
        from = at + 4;
    }
    // Inline paths.
    let b = rest.as_bytes();
    for root in ["crate::", "super::"] {
        for (at, _) in rest.match_indices(root) {
            if at > 0 && (is_ident(b[at - 1]) || b[at - 1] == b':') {
                continue;
            }
            let len = rest[at..].bytes().take_while(|&c| is_ident(c) || c == b':').count();
            out.push(rest[at..at + len].trim_end_matches(':').to_string());
        }
    }
    out
}

/// The module a path names: the longest module of `modules` it starts
/// with, the path read from the module `from` (`super::` is its parent).
fn resolve(path: &str, from: &str, modules: &BTreeSet<String>) -> Option<String> {
    let mut segments: Vec<&str> = path.split("::").collect();
    let mut base: Vec<&str> = if from == "main" { Vec::new() } else { from.split("::").collect() };
    match segments.first() {
        Some(&"crate") => {
            base.clear();
            segments.remove(0);
        }
        Some(&"super") => {
            while segments.first() == Some(&"super") {
                base.pop();
                segments.remove(0);
            }
        }
        _ => return None,
    }
    let full: Vec<&str> = base.into_iter().chain(segments).filter(|s| *s != "self" && *s != "*").collect();
    (1..=full.len()).rev().map(|n| full[..n].join("::")).find(|m| modules.contains(m)).or(Some("main".to_string()))
}

/// Whether `ancestor` is `module`'s parent, or its parent's, up to the root.
fn is_ancestor(ancestor: &str, module: &str) -> bool {
    ancestor == "main" || module.starts_with(&format!("{ancestor}::"))
}

/// The imports between the modules of `files` (path below `cli/src/` to
/// its text), test modules and ancestors left out.
fn imports(files: &Files) -> Graph {
    let modules: BTreeSet<String> = files.keys().map(|f| module_of(f)).collect();
    let mut graph = Graph::new();
    for (file, text) in files {
        let module = module_of(file);
        let code = without_test_modules(&code_only(text));
        let targets = graph.entry(module.clone()).or_default();
        for path in paths(&code) {
            if let Some(target) = resolve(&path, &module, &modules) {
                if target != module && !is_ancestor(&target, &module) {
                    targets.insert(target);
                }
            }
        }
    }
    graph
}

/// Each import circle of `graph`, as one path round it (`a -> b -> a`):
/// one for each group of modules that reach each other.
fn circles(graph: &Graph) -> Vec<String> {
    let reach = |from: &str| -> BTreeSet<String> {
        let (mut seen, mut todo) = (BTreeSet::new(), vec![from.to_string()]);
        while let Some(m) = todo.pop() {
            for next in graph.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let mut placed = BTreeSet::new();
    let mut out = Vec::new();
    for module in graph.keys() {
        if placed.contains(module) || !reach(module).contains(module) {
            continue;
        }
        let group: BTreeSet<String> = reach(module).into_iter().filter(|other| reach(other).contains(module)).collect();
        placed.extend(group.iter().cloned());
        // The shortest way round, from `module` back to it, within the group.
        let mut came_from: BTreeMap<String, String> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([module.clone()]);
        'search: while let Some(m) = queue.pop_front() {
            for next in graph.get(&m).into_iter().flatten().filter(|n| group.contains(*n)) {
                if next == module {
                    came_from.insert(format!("{module} (again)"), m.clone());
                    break 'search;
                }
                if !came_from.contains_key(next) {
                    came_from.insert(next.clone(), m.clone());
                    queue.push_back(next.clone());
                }
            }
        }
        let mut round = vec![module.clone()];
        let mut at = came_from[&format!("{module} (again)")].clone();
        while at != *module {
            round.push(at.clone());
            at = came_from[&at].clone();
        }
        round.push(module.clone());
        round.reverse();
        out.push(format!("{} ({} modules round it: {})", round.join(" -> "), group.len(), join(&group)));
    }
    out
}

fn join(set: &BTreeSet<String>) -> String {
    set.iter().map(String::as_str).collect::<Vec<_>>().join(", ")
}

/// The layers, bottom first: each a name and the paths below `cli/src/`
/// it holds (a path ending in `/` holds its directory), read from the
/// numbered list under `heading` in `page`: `1. **name**: `cli/src/a.rs`, …`.
fn layers(page: &str, heading: &str) -> Layers {
    let section = page.split(heading).nth(1).unwrap_or_else(|| panic!("no {heading:?} in docs/layout.md"));
    let section = section.split("\n#").next().unwrap();
    let mut out: Layers = Vec::new();
    for line in section.lines() {
        let item = line.trim_start();
        let numbered = item.split_once(". **").filter(|(n, _)| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()));
        if let Some((_, rest)) = numbered {
            out.push((rest.split("**").next().unwrap().to_string(), Vec::new()));
        } else if item.is_empty() {
            continue;
        }
        let Some((_, paths)) = out.last_mut() else { continue };
        for quoted in line.split('`').skip(1).step_by(2) {
            if let Some(path) = quoted.strip_prefix("cli/src/") {
                paths.push(path.to_string());
            }
        }
    }
    out
}

/// The layer of each file of `files`: the one whose path holds it most
/// narrowly. Err: the files no layer holds.
fn layer_of_each(files: &Files, layers: &[(String, Vec<String>)]) -> Result<BTreeMap<String, usize>, Vec<String>> {
    let mut out = BTreeMap::new();
    let mut unplaced = Vec::new();
    for file in files.keys() {
        let holds = |path: &String| path == file || (path.ends_with('/') && file.starts_with(path.as_str()));
        let best = layers
            .iter()
            .enumerate()
            .flat_map(|(n, (_, paths))| paths.iter().filter(|p| holds(p)).map(move |p| (p.len(), n)))
            .max();
        match best {
            Some((_, n)) => {
                out.insert(module_of(file), n);
            }
            None => unplaced.push(file.clone()),
        }
    }
    if unplaced.is_empty() {
        Ok(out)
    } else {
        Err(unplaced)
    }
}

/// Each import of `graph` from a module to one of a higher layer.
fn upward(graph: &Graph, layer: &BTreeMap<String, usize>, names: &[(String, Vec<String>)]) -> Vec<String> {
    let mut out = Vec::new();
    for (module, targets) in graph {
        for target in targets {
            let (from, to) = (layer[module], layer[target]);
            if to > from {
                out.push(format!("{module} ({}) imports {target} ({})", names[from].0, names[to].0));
            }
        }
    }
    out
}

/// Each product function of `files` longer than `max` lines, with its
/// file, line and length.
fn long_functions(files: &Files, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    for (file, text) in files {
        let code = without_test_modules(&code_only(text));
        let b = code.as_bytes();
        for (at, _) in code.match_indices("fn ") {
            if at > 0 && is_ident(b[at - 1]) {
                continue;
            }
            // A function with a body: `{` before any `;` (not a trait's
            // required method, not a `fn(…)` type).
            let Some(open) = code[at..].find(['{', ';']).map(|n| at + n) else { continue };
            if b[open] != b'{' || !code[at + 3..].starts_with(|c: char| c.is_alphabetic() || c == '_') {
                continue;
            }
            let end = block_end(&code, open);
            let lines = code[at..end].lines().count();
            if lines > max {
                let line = code[..at].lines().count() + 1;
                let name: String = code[at + 3..].chars().take_while(|&c| is_ident(c as u8)).collect();
                out.push(format!("{file}:{line}: fn {name} is {lines} lines"));
            }
        }
    }
    out
}

const HEADING: &str = "## The tool's layers";

fn the_tool() -> (Files, Layers) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = sources(&root.join("src"));
    let page = std::fs::read_to_string(root.join("../docs/layout.md")).unwrap();
    (files, layers(&page, HEADING))
}

#[test]
fn the_tools_imports_run_down_its_layers_round_no_circle() {
    let (files, layers) = the_tool();
    assert!(layers.len() >= 3, "docs/layout.md, {HEADING:?}: no numbered list of layers");
    let layer = layer_of_each(&files, &layers)
        .unwrap_or_else(|unplaced| panic!("docs/layout.md, {HEADING:?}: no layer holds {}", unplaced.join(", ")));
    let graph = imports(&files);
    let circles = circles(&graph);
    assert!(circles.is_empty(), "import circles in cli/src:\n{}", circles.join("\n"));
    let upward = upward(&graph, &layer, &layers);
    assert!(upward.is_empty(), "imports running up the layers of docs/layout.md:\n{}", upward.join("\n"));
}

#[test]
fn no_product_function_of_the_tool_is_long() {
    let (files, _) = the_tool();
    let long = long_functions(&files, MAX_FUNCTION_LINES);
    assert!(long.is_empty(), "longer than {MAX_FUNCTION_LINES} lines: split by meaning\n{}", long.join("\n"));
}

/// The checker itself, on a made-up crate: it must be able to fail.
#[test]
fn the_checker_names_a_circle_an_upward_import_and_a_long_function() {
    let long_body = "    let _ = 1;\n".repeat(5);
    let files: Files = [
        ("main.rs", "mod a;\nmod b;\nmod top;\nfn main() { top::run() }\n".to_string()),
        // a -> b through a use tree, b -> a through an inline path.
        ("a.rs", "use crate::{b::{self, Thing}, show};\n// crate::top in a comment\n".to_string()),
        ("b.rs", "pub struct Thing;\npub fn f() { crate::a::g(\"crate::top\") }\n".to_string()),
        // A child reaches its parent (its namespace) and, up, the top layer.
        ("b/c.rs", format!("use super::Thing;\nuse super::super::top;\nfn long() {{\n{long_body}}}\n")),
        ("show.rs", "#[cfg(test)]\nmod tests {\n    use crate::top;\n}\n".to_string()),
        ("top.rs", "use crate::a;\npub fn run() {}\n".to_string()),
    ]
    .into_iter()
    .map(|(f, t)| (f.to_string(), t))
    .collect();
    let graph = imports(&files);
    assert_eq!(graph["a"], BTreeSet::from(["b".to_string(), "show".to_string()]));
    assert_eq!(graph["b"], BTreeSet::from(["a".to_string()]));
    assert_eq!(graph["b::c"], BTreeSet::from(["top".to_string()]), "a parent is no import; super::super is");
    assert!(graph["show"].is_empty(), "a test module may use any layer");
    assert_eq!(circles(&graph), ["a -> b -> a (2 modules round it: a, b)"]);

    let page = "# x\n\n## The tool's layers\n\n1. **bottom**: `cli/src/a.rs`, `cli/src/b.rs`,\n   `cli/src/b/`, \
                `cli/src/show.rs`\n2. **top**: `cli/src/top.rs`\n\n## Next\n\n1. **not a layer**: `cli/src/main.rs`\n";
    let drawn = layers(page, HEADING);
    assert_eq!(drawn.len(), 2);
    assert_eq!(layer_of_each(&files, &drawn), Err(vec!["main.rs".to_string()]));
    let mut placed = files.clone();
    placed.remove("main.rs");
    let layer = layer_of_each(&placed, &drawn).unwrap();
    assert_eq!(layer["b::c"], 0);
    let graph = imports(&placed);
    assert_eq!(upward(&graph, &layer, &drawn), ["b::c (bottom) imports top (top)"]);

    assert_eq!(long_functions(&files, 6), ["b/c.rs:3: fn long is 7 lines"]);
    assert!(long_functions(&files, 7).is_empty());
}
