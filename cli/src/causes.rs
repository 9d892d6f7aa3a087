//! The likely causes of a disagreement between a running runtime and the
//! list read here, gathered over the disagreeing images (each runtime's
//! module says which apply to it: `Model::likely_causes`), and the
//! decision both rest on: which pattern pins an image, by which name.

use crio_pin::Flags;
use serde::Serialize;

use crate::codes::CauseCode;
use crate::images::{Image, Name};
use crate::list::Resolved;
use crate::refused::Compiled;

/// A likely cause of disagreements with the runtime, stated once with the
/// images it can explain. (Keys in alphabetical order.)
#[derive(Serialize)]
pub struct Cause {
    pub code: CauseCode,
    /// Where the cause is (an `overridden-list`: the replacing list's key).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The disagreeing images it can explain: indexes into `images`.
    pub images: Vec<usize>,
    /// Those it can explain that a folded report left out of `images`.
    #[serde(skip_serializing_if = "is_zero")]
    pub images_left_out: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub message: String,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The lowest pattern index over the names a container runtime matches,
/// as CRI-O's loop finds a match, and the name it matched.
pub fn decide<'a>(compiled: &Compiled, image: &'a Image) -> Option<(usize, &'a Name)> {
    decide_as(compiled, image, |name| name)
}

/// As [`decide`], each stored name compared as `compared_as` gives it
/// (`Naming::compared_as`: the kubelet compares a repository).
pub fn decide_as<'a>(
    compiled: &Compiled,
    image: &'a Image,
    compared_as: fn(&str) -> &str,
) -> Option<(usize, &'a Name)> {
    image
        .names
        .iter()
        .filter(|n| n.stored)
        .filter_map(|n| compiled.set.match_index(compared_as(&n.text).as_bytes()).map(|i| (i, n)))
        .min_by_key(|(i, _)| *i)
        .map(|(i, n)| (compiled.list_index(i), n))
}

/// What the running runtime said of itself beyond its flags (`check`
/// asks it on its socket), which makes a likely cause certain or rules it
/// out; all None where it was not asked (`explain --check`, `--images`).
#[derive(Clone, Copy, Default)]
pub struct Known<'a> {
    /// The version it answered `Version` with.
    pub version: Option<&'a str>,
    /// Whether the list its own configuration holds is the files' list
    /// (CRI-O's `/config`), and how it was asked.
    pub same_list: Option<(bool, &'a str)>,
}

/// The likely reasons the running runtime pins differently from the
/// files, gathered over the disagreeing images: each cause once, with the
/// images it can explain.
pub struct Causes<'r> {
    pub resolved: &'r Resolved,
    pub flags: Flags,
    pub known: Known<'r>,
    /// containerd: the list compiled under the other rules (released or
    /// normalised), when first needed (None: it cannot be compiled).
    pub other_rules: Option<Option<Compiled>>,
    /// The dropped patterns of each replaced list, compiled when first
    /// needed (None: they cannot be compiled, so any image may be theirs).
    pub dropped: Vec<Option<Option<Compiled>>>,
    /// Each cause found, with which one of its code it is (a replaced
    /// list's index; 0 for the others).
    found: Vec<(usize, Cause)>,
}

impl<'r> Causes<'r> {
    pub fn new(resolved: &'r Resolved, flags: Flags, known: Known<'r>) -> Causes<'r> {
        Causes {
            resolved,
            flags,
            known,
            other_rules: None,
            dropped: resolved.overrides.iter().map(|_| None).collect(),
            found: Vec::new(),
        }
    }

    pub fn push(&mut self, code: CauseCode, which: usize, image: usize, message: impl FnOnce() -> String) {
        self.push_at(code, which, image, None, message);
    }

    pub fn push_at(
        &mut self,
        code: CauseCode,
        which: usize,
        image: usize,
        at: Option<(String, usize)>,
        message: impl FnOnce() -> String,
    ) {
        match self.found.iter_mut().find(|(w, c)| c.code == code && *w == which) {
            Some((_, found)) => found.images.push(image),
            None => {
                let (file, line) = at.map_or((None, None), |(f, l)| (Some(f), Some(l)));
                self.found.push((
                    which,
                    Cause { code, file, images: vec![image], images_left_out: 0, line, message: message() },
                ));
            }
        }
    }

    /// The causes in the manual's order of their codes.
    pub fn finish(mut self) -> Vec<Cause> {
        let rank = |c: CauseCode| CauseCode::ALL.iter().position(|&k| k == c);
        self.found.sort_by_key(|(which, c)| (rank(c.code), *which));
        self.found.into_iter().map(|(_, cause)| cause).collect()
    }
}
