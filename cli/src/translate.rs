//! `translate`: one runtime's pinned list written in another runtime's
//! terms, entry by entry, and how faithfully each entry carries over.
//!
//! Each entry is classified by the source runtime's rules (the library's
//! `Pattern::parse` under its flags), then written with the target's means:
//!
//! | source \ target | CRI-O | containerd | containerd normalised | cri-dockerd |
//! |---|---|---|---|---|
//! | exact `t` | `t` (no literal trailing `*` in CRI-O) | `t` | `t` normalised (wider when that differs) | Docker's short form of `t` |
//! | glob, anywhere (CRI-O) | itself | impossible | impossible | anchored prefix (narrower) |
//! | prefix, anchored (cri-dockerd) | glob, anywhere (wider) | impossible | impossible | itself |
//! | keyword (CRI-O) | itself | impossible | impossible | impossible |
//! | bare repository (cri-dockerd) | `r:*`, `r@*`, normalised (wider: globs match anywhere) | impossible | impossible | itself |
//! | blank (cri-dockerd) | dropped | dropped | dropped | itself |
//!
//! Names cross forms too: Docker (cri-dockerd) reports Docker Hub names
//! short (`nginx:1`), CRI-O and containerd store them normalised
//! (`docker.io/library/nginx:1`); an exact name is written in the form the
//! target stores, and one the source never stores (it pins nothing there)
//! is dropped, saying so.
//!
//! Case is the one difference every entry shares: CRI-O ignores it, the
//! others do not. It is said once, for the whole list ([`case_note`]),
//! rather than on each entry. Nothing is guessed silently: an entry that
//! cannot be written exactly says how its pins change, and `--images`
//! runs both lists over a node's images to show every difference.

use crate::images::{familiar, normalized};
use crio_pin::{Flags, Pattern};
use serde::Serialize;

use crate::runtime::Runtime;

/// How faithfully a translated entry pins what the original pinned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fidelity {
    /// The same names.
    Exact,
    /// Every name the original pinned, and others.
    Wider,
    /// Only some of the names the original pinned.
    Narrower,
    /// The target has no way to write it: left out.
    Impossible,
    /// It pinned nothing (a blank entry): left out.
    Dropped,
}

impl Fidelity {
    pub fn as_str(self) -> &'static str {
        match self {
            Fidelity::Exact => "exact",
            Fidelity::Wider => "wider",
            Fidelity::Narrower => "narrower",
            Fidelity::Impossible => "impossible",
            Fidelity::Dropped => "dropped",
        }
    }

    /// Whether the translation changes what the entry pins.
    pub fn changes_pins(self) -> bool {
        matches!(self, Fidelity::Wider | Fidelity::Narrower | Fidelity::Impossible)
    }
}

/// One entry, translated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Translated {
    /// The target's patterns (none when impossible or dropped).
    pub patterns: Vec<String>,
    pub fidelity: Fidelity,
    /// What changes, when something does.
    pub why: Option<String>,
}

impl Translated {
    fn exact(pattern: String) -> Translated {
        Translated { patterns: vec![pattern], fidelity: Fidelity::Exact, why: None }
    }

    fn changed(patterns: Vec<String>, fidelity: Fidelity, why: String) -> Translated {
        Translated { patterns, fidelity, why: Some(why) }
    }

    fn impossible(why: String) -> Translated {
        Translated { patterns: Vec::new(), fidelity: Fidelity::Impossible, why: Some(why) }
    }
}

/// Whether CRI-O would read `text` as the exact name it is (not a glob, a
/// keyword or the refused lone `*`).
fn crio_reads_as_exact(text: &str) -> bool {
    matches!(Pattern::parse(text, Flags::CRIO), Ok(Pattern::Exact(_)))
}

/// `text`, an entry of `from`'s list, in `to`'s terms.
pub fn translate(text: &str, from: Runtime, to: Runtime) -> Translated {
    if from == Runtime::Containerd && to != Runtime::Containerd && crate::images::is_image_id(text) {
        return Translated::impossible(format!(
            "an image ID: containerd pins the image by its ID record; {} compares names only (pin the image's \
             names instead)",
            to.name()
        ));
    }
    with_case(translate_kind(text, from, to), from, to)
}

/// An exact translation whose letters' case decides what it pins under
/// one runtime and not the other.
fn with_case(t: Translated, from: Runtime, to: Runtime) -> Translated {
    let folds = |r: Runtime| !r.flags().contains(Flags::CASE_SENSITIVE);
    let [pattern] = &t.patterns[..] else { return t };
    if t.fidelity != Fidelity::Exact || folds(from) == folds(to) || !pattern.chars().any(char::is_uppercase) {
        return t;
    }
    let lower = crate::show::quote(&pattern.to_lowercase());
    if folds(to) {
        let why = format!("{} ignores case: it also pins {lower}, which {} does not", to.name(), from.name());
        Translated::changed(t.patterns, Fidelity::Wider, why)
    } else {
        let why = format!("{} compares case: it no longer pins {lower}, which {} did", to.name(), from.name());
        Translated::changed(t.patterns, Fidelity::Narrower, why)
    }
}

fn translate_kind(text: &str, from: Runtime, to: Runtime) -> Translated {
    let pattern = match Pattern::parse(text, from.flags()) {
        Ok(pattern) => pattern,
        Err(kind) => {
            return Translated::impossible(format!("{} refuses it ({kind:?}): fix it first", from.name()));
        }
    };
    // containerd's normalised rules compare the value's normalised form.
    let normalized_owned;
    let pattern = match pattern {
        Pattern::Exact(t) if from == Runtime::ContainerdNormalized => match normalized(t) {
            Ok(n) => {
                normalized_owned = n;
                Pattern::Exact(&normalized_owned)
            }
            Err(why) => return Translated::impossible(format!("not an image reference ({why}): it pins nothing")),
        },
        other => other,
    };
    // Docker (cri-dockerd) reports Docker Hub names in their short form;
    // CRI-O and containerd store them normalised: an exact name crosses
    // between the two forms.
    let crossing = (from == Runtime::CriDockerd) != (to == Runtime::CriDockerd);
    let crossed_owned;
    let pattern = match pattern {
        Pattern::Exact(t) if crossing => match cross_exact(t, from, to) {
            Ok(crossed) => {
                crossed_owned = crossed;
                Pattern::Exact(&crossed_owned)
            }
            Err(translated) => return translated,
        },
        Pattern::Repository(r) if crossing => match normalized(r) {
            // Normalised names always have a tag or digest.
            Ok(n) => {
                let repository = n.strip_suffix(":latest").unwrap_or(&n).to_owned();
                return repository_elsewhere(&repository, to);
            }
            Err(why) => return Translated::impossible(format!("not a repository ({why})")),
        },
        Pattern::Glob(prefix) if crossing && to == Runtime::CriDockerd => {
            match familiar(prefix).filter(|short| !short.is_empty()) {
                Some(short) if short != prefix => {
                    return Translated::changed(
                        vec![format!("{short}*")],
                        Fidelity::Narrower,
                        format!(
                            "Docker reports Docker Hub names in short form: the prefix becomes {}, matched only at \
                             the start of the name",
                            crate::show::quote(short)
                        ),
                    );
                }
                _ => pattern,
            }
        }
        other => other,
    };
    match (pattern, to) {
        (Pattern::Blank, Runtime::CriDockerd) => Translated::exact(text.to_owned()),
        (Pattern::Blank, _) => {
            Translated { patterns: Vec::new(), fidelity: Fidelity::Dropped, why: Some("blank: it pins nothing".into()) }
        }
        (Pattern::Exact(t), Runtime::Crio) => {
            if crio_reads_as_exact(t) {
                Translated::exact(t.to_owned())
            } else {
                Translated::impossible(
                    "CRI-O reads a trailing '*', a \"*word*\" or a lone '*' as a wildcard: it has no way to write \
                     this name"
                        .into(),
                )
            }
        }
        (Pattern::Exact(t), Runtime::Containerd) => Translated::exact(t.to_owned()),
        (Pattern::Exact(t), Runtime::ContainerdNormalized) => match normalized(t) {
            Ok(n) => {
                if n == t {
                    Translated::exact(n)
                } else {
                    let why = format!("normalised, it also pins {}", crate::show::quote(&n));
                    Translated::changed(vec![n], Fidelity::Wider, why)
                }
            }
            Err(why) => Translated::impossible(format!(
                "not an image reference ({why}): containerd's normalised rules refuse it, and it pins no name \
                 containerd stores"
            )),
        },
        (Pattern::Exact(t), Runtime::CriDockerd) => match Pattern::parse(t, Flags::CRI_DOCKERD) {
            Ok(Pattern::Exact(same)) if same == t => Translated::exact(t.to_owned()),
            Ok(Pattern::Repository(_)) => Translated::changed(
                vec![t.to_owned()],
                Fidelity::Wider,
                "without a tag or digest, cri-dockerd reads it as the whole repository: every tag and digest".into(),
            ),
            _ => Translated::impossible(
                "cri-dockerd trims white space and reads a trailing '*' as a prefix: it has no way to write this \
                 name"
                    .into(),
            ),
        },
        (Pattern::Glob(prefix), to) => {
            let anchored = from.flags().contains(Flags::ANCHOR_GLOBS);
            match to {
                Runtime::Crio if prefix.starts_with('*') => Translated::impossible(
                    "CRI-O reads \"*word*\" as a keyword (anywhere in the name): it has no prefix that starts with \
                     '*'"
                    .into(),
                ),
                // cri-dockerd's lone '*' pins every name: CRI-O's "**".
                Runtime::Crio if anchored && prefix.is_empty() => Translated::exact("**".to_owned()),
                Runtime::Crio if anchored => Translated::changed(
                    vec![format!("{prefix}*")],
                    Fidelity::Wider,
                    format!(
                        "CRI-O's glob matches {} anywhere in the name, not only at its start",
                        crate::show::quote(prefix)
                    ),
                ),
                Runtime::Crio => Translated::exact(format!("{prefix}*")),
                Runtime::CriDockerd if anchored => Translated::exact(format!("{prefix}*")),
                Runtime::CriDockerd => Translated::changed(
                    vec![format!("{prefix}*")],
                    Fidelity::Narrower,
                    format!(
                        "cri-dockerd's prefix matches {} only at the start of the name",
                        crate::show::quote(prefix)
                    ),
                ),
                _ => Translated::impossible(format!("{} has no wildcard", to.name())),
            }
        }
        (Pattern::Keyword(_), Runtime::Crio) => Translated::exact(text.to_owned()),
        // "**" pins every name: cri-dockerd's lone '*'.
        (Pattern::Keyword(""), Runtime::CriDockerd) => Translated::exact("*".to_owned()),
        (Pattern::Keyword(_), _) => Translated::impossible(format!("{} has no keyword (\"*word*\")", to.name())),
        (Pattern::Repository(r), Runtime::CriDockerd) => Translated::exact(r.to_owned()),
        (Pattern::Repository(r), to) => repository_elsewhere(r, to),
    }
}

/// A bare repository (every tag and digest of it) in a runtime that has
/// no such match.
fn repository_elsewhere(r: &str, to: Runtime) -> Translated {
    match to {
        Runtime::Crio => Translated::changed(
            vec![format!("{r}:*"), format!("{r}@*")],
            Fidelity::Wider,
            format!(
                "CRI-O has no repository match: its globs {} and {} match anywhere in the name (e.g. mirror/{r}:1)",
                crate::show::quote(&format!("{r}:*")),
                crate::show::quote(&format!("{r}@*"))
            ),
        ),
        _ => Translated::impossible(format!("{} has no wildcard: it cannot pin every tag of a repository", to.name())),
    }
}

/// An exact name of `from` as `to` stores the same image: Docker's short
/// form for cri-dockerd, the normalised form for the others. Err: the
/// entry's translation when it has none (it pins nothing where it is, or
/// it is an image ID).
fn cross_exact(t: &str, from: Runtime, to: Runtime) -> Result<String, Translated> {
    if from != Runtime::CriDockerd && crate::images::is_image_id(t) {
        return Err(Translated::impossible("an image ID: cri-dockerd compares names only".into()));
    }
    let full = match normalized(t) {
        Ok(n) => n,
        Err(why) => return Err(Translated::impossible(format!("not an image reference ({why})"))),
    };
    let short = familiar(&full).unwrap_or(&full).to_owned();
    let (stored_where, stored) =
        if from == Runtime::CriDockerd { (&short, "Docker reports") } else { (&full, "it stores") };
    if stored_where != t {
        return Err(Translated {
            patterns: Vec::new(),
            fidelity: Fidelity::Dropped,
            why: Some(format!(
                "{} never matches it: {stored} this image as {}, so it pins nothing there",
                from.name(),
                crate::show::quote(stored_where)
            )),
        });
    }
    Ok(if to == Runtime::CriDockerd { short } else { full })
}

/// What the change of case rules does to every entry, when it does.
pub fn case_note(from: Runtime, to: Runtime) -> Option<String> {
    let folds = |r: Runtime| !r.flags().contains(Flags::CASE_SENSITIVE);
    match (folds(from), folds(to)) {
        (false, true) => Some(format!(
            "{} ignores case where {} does not: each entry also pins the names that differ from it only in case \
             (a tag such as v1 and V1)",
            to.name(),
            from.name()
        )),
        (true, false) => Some(format!(
            "{} compares case where {} ignores it: an entry no longer pins the names that differ from it only in \
             case",
            to.name(),
            from.name()
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str, from: Runtime, to: Runtime) -> (Vec<String>, Fidelity) {
        let got = translate(text, from, to);
        (got.patterns, got.fidelity)
    }

    fn pats(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn containerd_to_crio() {
        use Runtime::{Containerd, Crio};
        assert_eq!(
            t("docker.io/library/nginx:1", Containerd, Crio),
            (pats(&["docker.io/library/nginx:1"]), Fidelity::Exact)
        );
        assert_eq!(t("quay.io/*", Containerd, Crio).1, Fidelity::Impossible);
        assert_eq!(t("*pause", Containerd, Crio), (pats(&["*pause"]), Fidelity::Exact));
        assert_eq!(t("*", Containerd, Crio).1, Fidelity::Impossible);
    }

    #[test]
    fn containerd_normalized_writes_the_stored_form() {
        use Runtime::{ContainerdNormalized, Crio};
        assert_eq!(
            t("nginx", ContainerdNormalized, Crio),
            (pats(&["docker.io/library/nginx:latest"]), Fidelity::Exact)
        );
        assert_eq!(t("Quay.io/A", ContainerdNormalized, Crio).1, Fidelity::Impossible);
    }

    #[test]
    fn cri_dockerd_to_crio() {
        use Runtime::{CriDockerd, Crio};
        assert_eq!(
            t("nginx", CriDockerd, Crio),
            (pats(&["docker.io/library/nginx:*", "docker.io/library/nginx@*"]), Fidelity::Wider)
        );
        assert_eq!(t("quay.io/a", CriDockerd, Crio), (pats(&["quay.io/a:*", "quay.io/a@*"]), Fidelity::Wider));
        // Docker's short names are CRI-O's long ones, and the reverse.
        assert_eq!(t("redis:7", CriDockerd, Crio), (pats(&["docker.io/library/redis:7"]), Fidelity::Exact));
        assert_eq!(t("docker.io/library/redis:7", CriDockerd, Crio).1, Fidelity::Dropped);
        assert_eq!(t("quay.io/*", CriDockerd, Crio), (pats(&["quay.io/*"]), Fidelity::Wider));
        assert_eq!(t("*", CriDockerd, Crio), (pats(&["**"]), Fidelity::Exact));
        assert_eq!(t("*pause*", CriDockerd, Crio).1, Fidelity::Impossible);
        assert_eq!(t("  ", CriDockerd, Crio).1, Fidelity::Dropped);
        assert_eq!(t(" nginx:1 ", CriDockerd, Crio), (pats(&["docker.io/library/nginx:1"]), Fidelity::Exact));
    }

    #[test]
    fn crio_to_the_others() {
        use Runtime::{Containerd, ContainerdNormalized, CriDockerd, Crio};
        assert_eq!(t("quay.io/*", Crio, Containerd).1, Fidelity::Impossible);
        assert_eq!(t("*etcd*", Crio, CriDockerd).1, Fidelity::Impossible);
        assert_eq!(t("quay.io/*", Crio, CriDockerd), (pats(&["quay.io/*"]), Fidelity::Narrower));
        assert_eq!(t("docker.io/library/nginx:1", Crio, CriDockerd), (pats(&["nginx:1"]), Fidelity::Exact));
        assert_eq!(t("quay.io/a:1", Crio, CriDockerd), (pats(&["quay.io/a:1"]), Fidelity::Exact));
        // CRI-O stores normalised names: a short one pins nothing there.
        assert_eq!(t("nginx:1", Crio, CriDockerd).1, Fidelity::Dropped);
        assert_eq!(t("docker.io/library/nginx*", Crio, CriDockerd), (pats(&["nginx*"]), Fidelity::Narrower));
        assert_eq!(t(&format!("sha256:{}", "a".repeat(64)), Runtime::Containerd, CriDockerd).1, Fidelity::Impossible);
        assert_eq!(
            t("nginx", Crio, ContainerdNormalized),
            (pats(&["docker.io/library/nginx:latest"]), Fidelity::Wider)
        );
        assert_eq!(t("**", Crio, Crio).1, Fidelity::Exact);
        assert_eq!(t("**", Crio, CriDockerd), (pats(&["*"]), Fidelity::Exact));
    }

    #[test]
    fn upper_case_and_image_ids_change_what_an_entry_pins() {
        use Runtime::{Containerd, Crio};
        assert_eq!(t("Registry.K8s.io/x:v1", Containerd, Crio).1, Fidelity::Wider);
        assert_eq!(t("Registry.K8s.io/x:v1", Crio, Containerd).1, Fidelity::Narrower);
        let id = format!("sha256:{}", "a".repeat(64));
        assert_eq!(t(&id, Containerd, Crio).1, Fidelity::Impossible);
        assert_eq!(t(&id, Containerd, Containerd).1, Fidelity::Exact);
    }

    #[test]
    fn case_is_said_once_for_the_list() {
        assert!(case_note(Runtime::Containerd, Runtime::Crio).is_some_and(|n| n.contains("ignores case")));
        assert!(case_note(Runtime::Crio, Runtime::CriDockerd).is_some_and(|n| n.contains("compares case")));
        assert_eq!(case_note(Runtime::Containerd, Runtime::CriDockerd), None);
    }
}
