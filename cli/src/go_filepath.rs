//! Go's path functions as containerd uses them to find its imports
//! (path/filepath: Clean, Dir, Join, Match, Glob), on bytes, as Go's
//! strings are: an `imports` entry is cleaned, joined to its file's
//! directory when relative, then globbed if it has a meta character.

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
}
