//! Go's path functions as containerd uses them to find its imports
//! (path/filepath: Clean, Dir, Join, Match, Glob), on bytes, as Go's
//! strings are: an `imports` entry is cleaned, joined to its file's
//! directory when relative, then globbed if it has a meta character.
//!
//! Written from Go 1.26's path/filepath (match.go, path.go) on Unix, which
//! no crate follows (`glob` and `globset` read `[!a]`, `**` and escapes
//! otherwise); a test asks Go itself, by running it, tens of thousands of
//! Match and Glob queries and compares the answers
//! (`cli/tests/go/filepath.go`).

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// A path of bytes as the OS takes it.
pub fn os_path(bytes: &[u8]) -> &Path {
    Path::new(OsStr::from_bytes(bytes))
}

pub fn clean(path: &[u8]) -> Vec<u8> {
    if path.is_empty() {
        return b".".to_vec();
    }
    let rooted = path[0] == b'/';
    let mut parts: Vec<&[u8]> = Vec::new();
    for part in path.split(|&b| b == b'/') {
        match part {
            b"" | b"." => {}
            b".." => {
                if parts.last().is_some_and(|last| *last != b"..") {
                    parts.pop();
                } else if !rooted {
                    parts.push(part);
                }
            }
            _ => parts.push(part),
        }
    }
    let body = parts.join(&b'/');
    match (rooted, body.is_empty()) {
        (true, _) => [&b"/"[..], &body].concat(),
        (false, true) => b".".to_vec(),
        (false, false) => body,
    }
}

pub fn dir(path: &[u8]) -> Vec<u8> {
    let end = path.iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1);
    clean(&path[..end])
}

pub fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    clean(&[dir, b"/", name].concat())
}

/// filepath.ErrBadPattern.
#[derive(Debug, PartialEq)]
pub struct BadPattern;

/// Go's utf8.DecodeRune: an invalid byte is U+FFFD, one byte long.
fn decode_rune(s: &[u8]) -> (u32, usize) {
    for n in 1..=s.len().min(4) {
        if let Ok(text) = std::str::from_utf8(&s[..n]) {
            return (text.chars().next().map_or(0xFFFD, u32::from), n);
        }
    }
    (0xFFFD, 1)
}

pub fn is_match(mut pattern: &[u8], mut name: &[u8]) -> Result<bool, BadPattern> {
    'pattern: while !pattern.is_empty() {
        let (star, chunk, rest) = scan_chunk(pattern);
        pattern = rest;
        if star && chunk.is_empty() {
            return Ok(!name.contains(&b'/'));
        }
        let (t, ok) = match_chunk(chunk, name)?;
        if ok && (t.is_empty() || !pattern.is_empty()) {
            name = t;
            continue;
        }
        if star {
            let mut i = 0;
            while i < name.len() && name[i] != b'/' {
                let (t, ok) = match_chunk(chunk, &name[i + 1..])?;
                // The last chunk must use up the name.
                if ok && (t.is_empty() || !pattern.is_empty()) {
                    name = t;
                    continue 'pattern;
                }
                i += 1;
            }
        }
        return Ok(false);
    }
    Ok(name.is_empty())
}

fn scan_chunk(mut pattern: &[u8]) -> (bool, &[u8], &[u8]) {
    let mut star = false;
    while pattern.first() == Some(&b'*') {
        pattern = &pattern[1..];
        star = true;
    }
    let mut in_range = false;
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'\\' if i + 1 < pattern.len() => i += 1,
            b'[' => in_range = true,
            b']' => in_range = false,
            b'*' if !in_range => return (star, &pattern[..i], &pattern[i..]),
            _ => {}
        }
        i += 1;
    }
    (star, pattern, b"")
}

/// Whether `chunk` (no '*') matches the start of `s`, and the rest of `s`.
/// A failed match still checks the rest of the chunk, as Go does.
fn match_chunk<'s>(mut chunk: &[u8], mut s: &'s [u8]) -> Result<(&'s [u8], bool), BadPattern> {
    let mut failed = false;
    while !chunk.is_empty() {
        failed = failed || s.is_empty();
        match chunk[0] {
            b'[' => {
                let mut r = 0;
                if !failed {
                    let (c, n) = decode_rune(s);
                    r = c;
                    s = &s[n..];
                }
                chunk = &chunk[1..];
                let negated = chunk.first() == Some(&b'^');
                if negated {
                    chunk = &chunk[1..];
                }
                let (mut matched, mut ranges) = (false, 0);
                loop {
                    if chunk.first() == Some(&b']') && ranges > 0 {
                        chunk = &chunk[1..];
                        break;
                    }
                    let (lo, rest) = get_esc(chunk)?;
                    chunk = rest;
                    let mut hi = lo;
                    if chunk[0] == b'-' {
                        let (h, rest) = get_esc(&chunk[1..])?;
                        hi = h;
                        chunk = rest;
                    }
                    matched = matched || (lo <= r && r <= hi);
                    ranges += 1;
                }
                failed = failed || matched == negated;
            }
            b'?' => {
                if !failed {
                    failed = s[0] == b'/';
                    s = &s[decode_rune(s).1..];
                }
                chunk = &chunk[1..];
            }
            c => {
                let c = if c == b'\\' {
                    chunk = &chunk[1..];
                    *chunk.first().ok_or(BadPattern)?
                } else {
                    c
                };
                if !failed {
                    failed = c != s[0];
                    s = &s[1..];
                }
                chunk = &chunk[1..];
            }
        }
    }
    Ok(if failed { (b"", false) } else { (s, true) })
}

fn get_esc(chunk: &[u8]) -> Result<(u32, &[u8]), BadPattern> {
    if chunk.is_empty() || chunk[0] == b'-' || chunk[0] == b']' {
        return Err(BadPattern);
    }
    let chunk = if chunk[0] == b'\\' { &chunk[1..] } else { chunk };
    if chunk.is_empty() {
        return Err(BadPattern);
    }
    let (r, n) = decode_rune(chunk);
    if (r == 0xFFFD && n == 1) || chunk.len() == n {
        return Err(BadPattern);
    }
    Ok((r, &chunk[n..]))
}

fn has_meta(path: &[u8]) -> bool {
    path.iter().any(|b| b"*?[\\".contains(b))
}

/// Go's filepath.Glob: matches in lexical order, file system errors ignored.
pub fn glob(pattern: &[u8]) -> Result<Vec<Vec<u8>>, BadPattern> {
    glob_depth(pattern, 0)
}

fn glob_depth(pattern: &[u8], depth: usize) -> Result<Vec<Vec<u8>>, BadPattern> {
    if depth == 10_000 {
        return Err(BadPattern);
    }
    is_match(pattern, b"")?;
    if !has_meta(pattern) {
        return Ok(if fs::symlink_metadata(os_path(pattern)).is_ok() { vec![pattern.to_vec()] } else { Vec::new() });
    }
    let split = pattern.iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1);
    let (dir, file) = pattern.split_at(split);
    let dir: &[u8] = match dir {
        b"" => b".",
        b"/" => b"/",
        _ => &dir[..dir.len() - 1],
    };
    if !has_meta(dir) {
        return glob_dir(dir, file, Vec::new());
    }
    if dir == pattern {
        return Err(BadPattern);
    }
    let mut matches = Vec::new();
    for d in glob_depth(dir, depth + 1)? {
        matches = glob_dir(&d, file, matches)?;
    }
    Ok(matches)
}

fn glob_dir(dir: &[u8], pattern: &[u8], mut matches: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, BadPattern> {
    if !fs::metadata(os_path(dir)).is_ok_and(|m| m.is_dir()) {
        return Ok(matches);
    }
    let Ok(entries) = fs::read_dir(os_path(dir)) else { return Ok(matches) };
    let mut names: Vec<Vec<u8>> = entries.filter_map(Result::ok).map(|e| e.file_name().as_bytes().to_vec()).collect();
    names.sort();
    for name in names {
        if is_match(pattern, &name)? {
            matches.push(join(dir, &name));
        }
    }
    Ok(matches)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn go_path_functions() {
        let clean = |p: &str| String::from_utf8(clean(p.as_bytes())).unwrap();
        assert_eq!(clean(""), ".");
        assert_eq!(clean("a//b/./c/.."), "a/b");
        assert_eq!(clean("/../a/"), "/a");
        assert_eq!(clean("../../a"), "../../a");
        assert_eq!(clean("a/../.."), "..");
        assert_eq!(dir(b"config.toml"), b".");
        assert_eq!(dir(b"/etc/containerd/config.toml"), b"/etc/containerd");
        assert_eq!(join(b".", b"x.toml"), b"x.toml");

        let m = |p: &str, n: &str| is_match(p.as_bytes(), n.as_bytes());
        assert_eq!(m("*.toml", ".hidden.toml"), Ok(true));
        assert_eq!(m("*.toml", "a/b.toml"), Ok(false));
        assert_eq!(m("[0-9]?-*.toml", "1a-x.toml"), Ok(true));
        assert_eq!(m("[^0-9]*", "1"), Ok(false));
        assert_eq!(m("\\*", "*"), Ok(true));
        assert_eq!(m("a*b*c", "axxbyyc"), Ok(true));
        assert_eq!(m("[", ""), Err(BadPattern));
        assert_eq!(m("a\\", "a"), Err(BadPattern));
        assert_eq!(m("[z-a]", "q"), Ok(false));
        assert_eq!(m("x[]", ""), Err(BadPattern));

        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        for name in ["b.toml", "a.toml", ".c.toml", "d.conf", "sub/e.toml"] {
            std::fs::write(d.path().join(name), "").unwrap();
        }
        let root = d.path();
        let found = glob(root.join("*.toml").as_os_str().as_bytes()).unwrap();
        let names: Vec<_> =
            found.iter().map(|p| os_path(p).file_name().unwrap().to_str().unwrap().to_string()).collect();
        assert_eq!(names, vec![".c.toml", "a.toml", "b.toml"]);
        let nested = glob(root.join("*/*.toml").as_os_str().as_bytes()).unwrap();
        assert_eq!(nested.len(), 1);
    }

    /// A small deterministic generator (xorshift64*): the same queries on
    /// every run.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
        }

        fn pick<'a>(&mut self, from: &[&'a [u8]]) -> &'a [u8] {
            from[self.below(from.len())]
        }
    }

    /// The bytes patterns and names are made of: every meta character, the
    /// separator, letters, a two-byte rune and a byte that is no UTF-8.
    const ATOMS: [&[u8]; 14] =
        [b"*", b"?", b"[", b"]", b"^", b"-", b"\\", b"/", b"a", b"b", b"c", b".", "\u{e9}".as_bytes(), b"\xff"];

    /// Any string of atoms: mostly bad patterns, and names.
    fn any_text(rng: &mut Rng, max: usize) -> Vec<u8> {
        let len = rng.below(max + 1);
        (0..len).flat_map(|_| rng.pick(&ATOMS).to_vec()).collect()
    }

    /// A pattern made of tokens, so that most are well formed: letters,
    /// stars, `?`, escapes and classes (negated or not, of single runes,
    /// ranges and escapes), with a token left unfinished now and then.
    fn token_pattern(rng: &mut Rng, max: usize, separators: bool) -> Vec<u8> {
        let letters: &[&[u8]] = &[b"a", b"b", b"c", b".", "\u{e9}".as_bytes()];
        let mut out = Vec::new();
        for _ in 0..rng.below(max) + 1 {
            match rng.below(if separators { 12 } else { 11 }) {
                0..=3 => out.extend_from_slice(rng.pick(letters)),
                4 | 5 => out.push(b'*'),
                6 => out.push(b'?'),
                7 => {
                    out.push(b'\\');
                    out.extend_from_slice(rng.pick(&ATOMS));
                }
                8 | 9 => {
                    out.push(b'[');
                    if rng.below(3) == 0 {
                        out.push(b'^');
                    }
                    for _ in 0..rng.below(3) + 1 {
                        let item: &[&[u8]] = &[b"a", b"b", b"\\]", b"\\-", b"\\\\", b"/", b"*", "\u{e9}".as_bytes()];
                        out.extend_from_slice(rng.pick(item));
                        if rng.below(3) == 0 {
                            out.push(b'-');
                            out.extend_from_slice(rng.pick(item));
                        }
                    }
                    if rng.below(8) != 0 {
                        out.push(b']');
                    }
                }
                10 => out.extend_from_slice(rng.pick(&ATOMS)),
                _ => out.push(b'/'),
            }
        }
        out
    }

    /// A name for a pattern: one of the names it was made from, mostly.
    fn name_for(rng: &mut Rng) -> Vec<u8> {
        let name_atoms: &[&[u8]] = &[b"a", b"b", b"c", b".", b"/", b"-", b"]", b"*", "\u{e9}".as_bytes(), b"\xff"];
        let len = rng.below(7);
        (0..len).flat_map(|_| rng.pick(name_atoms).to_vec()).collect()
    }

    /// A name the pattern may well match: each `*` some atoms, each `?` or
    /// class one, an escape the byte it escapes, the rest as written (a
    /// negated class or a range is often missed: Go then says no).
    fn name_from(rng: &mut Rng, pattern: &[u8]) -> Vec<u8> {
        let mut name = Vec::new();
        let mut i = 0;
        while i < pattern.len() {
            match pattern[i] {
                b'*' => (0..rng.below(3)).for_each(|_| name.extend_from_slice(rng.pick(&ATOMS[7..]))),
                b'?' => name.extend_from_slice(rng.pick(&ATOMS[8..])),
                b'\\' if i + 1 < pattern.len() => {
                    i += 1;
                    name.push(pattern[i]);
                }
                b'[' => {
                    let end = pattern[i..].iter().position(|&b| b == b']').map_or(pattern.len(), |e| i + e);
                    let members: Vec<u8> =
                        pattern[i + 1..end].iter().copied().filter(|b| !b"^-\\".contains(b)).collect();
                    name.push(members.get(rng.below(members.len().max(1))).copied().unwrap_or(b'a'));
                    i = end;
                }
                b => name.push(b),
            }
            i += 1;
        }
        name
    }

    /// Patterns and names picked by hand: every edge of a class (ranges,
    /// negation, escapes, `]` and `-` where they are taken or refused), and
    /// patterns that end early.
    fn edge_cases() -> Vec<(Vec<u8>, Vec<u8>)> {
        let patterns: &[&[u8]] = &[
            b"",
            b"*",
            b"**",
            b"?",
            b"a*",
            b"*a",
            b"a*b*c",
            b"*/*",
            b"?/?",
            b"a/*",
            b"[a-c]",
            b"[^a-c]",
            b"[c-a]",
            b"[a-a]",
            b"[]a]",
            b"[^]a]",
            b"[\\]]",
            b"[\\-]",
            b"[\\\\]",
            b"[a\\-c]",
            b"[-]",
            b"[a-]",
            b"[-a]",
            b"[^]",
            b"[]",
            b"[",
            b"[a",
            b"[a-",
            b"[^",
            b"[\\",
            b"\\",
            b"a\\",
            b"*\\",
            b"\\*",
            b"\\?",
            b"\\[",
            b"\\a",
            b"[/]",
            b"[^/]",
            b"[!a]",
            b"a[",
            b"*a[",
            b"a*[",
            b"[a]*[",
            b"*[a",
            b"x*y[",
            b"[*]",
            b"[?]",
            b"[\xff]",
            b"[a-\xff]",
            b"\xff",
            b"*\xff",
            b"[\xc3\xa9]",
            b"[\xc3]",
            b"[a-\xc3\xa9]",
            b"[^\xc3\xa9]",
            b"?\xc3\xa9",
            b"[[]",
            b"[]]",
            b"[]-]",
            b"[a]]",
            b"*]",
            b"]",
            b"^",
            b"-",
            b"a[b-]c",
        ];
        let names: &[&[u8]] = &[
            b"",
            b"a",
            b"b",
            b"c",
            b"ab",
            b"abc",
            b"a/b",
            b"/",
            b"]",
            b"-",
            b"\\",
            b"*",
            b"?",
            b"[",
            b"^",
            b"\xff",
            b"\xc3\xa9",
            b"\xc3",
            b"a\xff",
            b"axbyc",
            b"x/y[",
        ];
        patterns.iter().flat_map(|p| names.iter().map(|n| (p.to_vec(), n.to_vec()))).collect()
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn match_answer(answer: Result<bool, BadPattern>) -> String {
        match answer {
            Ok(matched) => matched.to_string(),
            Err(BadPattern) => "bad".into(),
        }
    }

    fn glob_answer(answer: Result<Vec<Vec<u8>>, BadPattern>) -> String {
        match answer {
            Ok(found) => {
                std::iter::once("ok".to_string()).chain(found.iter().map(|p| hex(p))).collect::<Vec<_>>().join(" ")
            }
            Err(BadPattern) => "bad".into(),
        }
    }

    /// Go's answers to `queries` (the lines `cli/tests/go/filepath.go`
    /// reads) and its version (`crate::go_oracle`: None where Go cannot run).
    fn go_answers(queries: &str) -> Option<(String, Vec<String>)> {
        let (version, out) = crate::go_oracle::run("go_filepath", "filepath.go", queries)?;
        Some((version, out.lines().map(str::to_string).collect()))
    }

    /// A tree for Glob: names with meta characters and a two-byte rune,
    /// files and directories two levels deep, and a dangling symlink
    /// (Glob of a name without meta characters finds it: Lstat).
    fn glob_tree(root: &Path) {
        let names = ["a", "b", "ab", "a.toml", "b.conf", "[x]", "*", "?", "c-d", "\u{e9}", ".hidden"];
        for (i, top) in names.iter().enumerate() {
            let top = root.join(top);
            if i % 3 == 0 {
                fs::write(&top, "").unwrap();
                continue;
            }
            fs::create_dir(&top).unwrap();
            for inner in &names[..i] {
                if inner.len() % 2 == 0 {
                    fs::create_dir(top.join(inner)).unwrap();
                    fs::write(top.join(inner).join("x.toml"), "").unwrap();
                } else {
                    fs::write(top.join(inner), "").unwrap();
                }
            }
        }
        std::os::unix::fs::symlink(root.join("nowhere"), root.join("dangling")).unwrap();
    }

    #[test]
    fn match_and_glob_agree_with_go_itself() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut cases = edge_cases();
        for _ in 0..20_000 {
            cases.push((any_text(&mut rng, 8), name_for(&mut rng)));
        }
        for _ in 0..20_000 {
            let pattern = token_pattern(&mut rng, 6, true);
            let name = if rng.below(2) == 0 { name_from(&mut rng, &pattern) } else { name_for(&mut rng) };
            cases.push((pattern, name));
        }
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().as_os_str().as_bytes().to_vec();
        glob_tree(dir.path());
        let mut globs: Vec<Vec<u8>> = ["dangling", "a", "nowhere", "b/a", "[x]", "\\[x]", "*/*/x.toml", "*/[", "[/*"]
            .iter()
            .map(|p| p.as_bytes().to_vec())
            .collect();
        for _ in 0..3_000 {
            globs.push(token_pattern(&mut rng, 5, true));
        }
        let globs: Vec<Vec<u8>> = globs.iter().map(|p| [&root[..], b"/", p].concat()).collect();

        let mut queries = String::new();
        let mut ours = Vec::new();
        for (pattern, name) in &cases {
            queries.push_str(&format!("M {} {}\n", hex(pattern), hex(name)));
            ours.push(match_answer(is_match(pattern, name)));
        }
        for pattern in &globs {
            queries.push_str(&format!("G {}\n", hex(pattern)));
            ours.push(glob_answer(glob(pattern)));
        }
        let Some((version, theirs)) = go_answers(&queries) else { return };
        assert_eq!(theirs.len(), ours.len(), "one answer a query");
        let shown = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let queried = cases.iter().map(|(p, n)| format!("Match({:?}, {:?})", shown(p), shown(n)));
        let queried = queried.chain(globs.iter().map(|p| format!("Glob({:?})", shown(p))));
        let differ: Vec<String> = queried
            .zip(ours.iter().zip(&theirs))
            .filter(|(_, (a, b))| a != b)
            .map(|(q, (a, b))| format!("{q}: ours {a}, Go's {b}"))
            .collect();
        let count = |answer: &str| ours.iter().filter(|a| *a == answer).count();
        let (bad, found) = (count("bad"), ours.iter().filter(|a| a.starts_with("ok ")).count());
        println!(
            "{} Match and {} Glob queries compared with {version}: {} disagree ({} true, {} false, {bad} bad \
             patterns; {found} globs found files)",
            cases.len(),
            globs.len(),
            differ.len(),
            count("true"),
            count("false"),
        );
        assert!(bad > 1_000 && bad < ours.len() / 2, "bad patterns and good ones both asked ({bad} bad)");
        assert!(count("true") > 5_000, "matches asked");
        assert!(found > 100, "globs that find something asked ({found})");
        assert!(
            differ.is_empty(),
            "{} disagreements with Go, e.g.:\n{}",
            differ.len(),
            differ[..differ.len().min(20)].join("\n")
        );
    }
}
