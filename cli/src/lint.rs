//! What the runtime will do with each pattern, and what is likely a
//! mistake: CRI-O's traps (globs that are not anchored, names it never
//! stores), containerd's (values that are not the normalised names it
//! stores) and cri-dockerd's (prefixes that reach past a repository,
//! names Docker never reports). Each runtime's rules live in its module
//! (`crate::runtimes`); the loop they share is `crate::findings`.

use crio_pin::Flags;

use crate::findings::each_entry;
pub use crate::findings::{Artifacts, Finding, Severity};
use crate::list::Entry;
use crate::refused::List;

/// Lints `entries`, the list `list`, under the rules of the runtime whose
/// `flags` they are; `artifacts` when an `--images` listing was given
/// (CRI-O's OCI artifacts).
pub fn lint(entries: &[Entry], flags: Flags, list: List, artifacts: Option<&Artifacts>) -> Vec<Finding> {
    each_entry(crate::runtimes::lint_rules(flags, artifacts).as_ref(), entries, list)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::{verdict, without_whitespace, Fix};
    use crio_pin::pattern::ErrorKind;

    fn entries(texts: &[&str]) -> Vec<Entry> {
        let file: std::rc::Rc<str> = "f".into();
        texts.iter().enumerate().map(|(i, t)| Entry::in_file(t.as_bytes().to_vec(), &file, i + 1)).collect()
    }

    /// (index, code, severity, suggestion) of each finding.
    fn found(findings: &[Finding]) -> Vec<(usize, &'static str, &'static str, Option<&str>)> {
        findings.iter().map(|f| (f.index, f.code.as_str(), f.severity.as_str(), f.suggestion.as_deref())).collect()
    }

    const HEX: &str = "0a49ab7801187405f3981609b518c45bb06aff7ca2f5eba8ce5682647a91e8bd";

    #[test]
    fn containerd_values_are_checked_against_the_names_it_stores() {
        let id = format!("sha256:{HEX}");
        let tag_and_digest = format!("quay.io/a:1@sha256:{HEX}");
        let by_digest = format!("quay.io/a@sha256:{HEX}");
        let list = entries(&[
            "nginx",
            "registry.k8s.io/pause",
            &tag_and_digest,
            "Quay.io/a:1",
            "quay.io/*",
            &id,
            "docker.io/library/nginx:latest",
            HEX,
            "",
        ]);
        let released = lint(&list, Flags::CONTAINERD, List::Effective, None);
        assert_eq!(
            found(&released),
            [
                (0, "not-normalized", "warning", Some("docker.io/library/nginx:latest")),
                (1, "not-normalized", "warning", Some("registry.k8s.io/pause:latest")),
                (2, "not-normalized", "warning", Some(by_digest.as_str())),
                (3, "not-normalized", "warning", Some("quay.io/a:1")),
                (4, "not-a-reference", "warning", None),
                (7, "not-a-reference", "warning", Some(id.as_str())),
                (8, "not-a-reference", "warning", None),
            ]
        );
        assert!(released[4].message.contains("no wildcards"), "{}", released[4].message);
        assert!(released[2].message.contains("by digest only"), "{}", released[2].message);
        // With the fix PRs the value is normalised: a note that released
        // containerd differs, the same host warning, refused non-references,
        // and duplicates once normalised.
        let normalized = lint(&list, Flags::CONTAINERD_NORMALIZED, List::Effective, None);
        assert_eq!(
            found(&normalized),
            [
                (0, "not-normalized", "info", Some("docker.io/library/nginx:latest")),
                (1, "not-normalized", "info", Some("registry.k8s.io/pause:latest")),
                (2, "not-normalized", "info", Some(by_digest.as_str())),
                (3, "not-normalized", "warning", Some("quay.io/a:1")),
                (4, "not-a-reference", "error", None),
                (6, "duplicate", "warning", None),
                (7, "not-a-reference", "error", Some(id.as_str())),
                (8, "not-a-reference", "error", None),
            ]
        );
        // Every finding names the runtime it is about, never CRI-O.
        assert!(released.iter().chain(&normalized).all(|f| !f.message.contains("CRI-O")));
    }

    #[test]
    fn cri_dockerd_prefixes_and_names_docker_never_reports() {
        let list = entries(&[
            "nginx*",
            "registry.k8s.io/kube-*",
            "docker.io/library/redis:7",
            "docker.io/bitnami/etcd*",
            "*etcd*",
            "*",
            " nginx* ",
            "nginx:1",
            " ",
            "quay.io/a b:1",
            "nginx:1.2*",
        ]);
        let findings = lint(&list, Flags::CRI_DOCKERD, List::Effective, None);
        assert_eq!(
            found(&findings),
            [
                (0, "repository-prefix", "warning", Some("nginx")),
                (2, "not-familiar", "warning", Some("redis:7")),
                (3, "repository-prefix", "warning", Some("bitnami/etcd")),
                (3, "not-familiar", "warning", Some("bitnami/etcd*")),
                (4, "literal-star", "warning", None),
                (5, "pins-everything", "warning", None),
                (6, "repository-prefix", "warning", Some("nginx")),
                (6, "duplicate", "warning", None),
                (7, "shadowed", "warning", None),
                (8, "empty", "warning", None),
                (9, "whitespace", "warning", None),
                (9, "shadowed", "warning", None),
                (10, "shadowed", "warning", None),
            ]
        );
        assert!(findings.iter().all(|f| !f.message.contains("CRI-O")));
    }

    #[test]
    fn the_suggestion_drops_whitespace_and_never_a_control_character() {
        let dropped = |text| without_whitespace(text).expect("no control character");
        assert_eq!(dropped("quay.io/x:v1 "), "quay.io/x:v1");
        assert_eq!(dropped(" a\tb\u{a0}d\u{2028}e\r\n"), "abde");
        assert_eq!(dropped(" * "), "*");
        assert_eq!(dropped("\n"), "");
        assert_eq!(dropped("quay.io/*"), "quay.io/*");
        for control in ["a\0b", " a\u{7f}", "a\u{1b}[31m", "a\u{b}", "a\u{85}", "a b\u{9f}"] {
            assert_eq!(without_whitespace(control), None, "{control:?}");
        }
    }

    #[test]
    fn a_control_character_is_an_error_under_every_runtime_with_no_fix() {
        let list = entries(&["quay.io/a\0b:1", "quay.io/c:1 ", "\u{1b}[31mquay.io/d:1", "quay.io/e\tf:1", "\u{85}"]);
        for flags in [Flags::CRIO, Flags::CRIO | Flags::STRICT, Flags::CONTAINERD, Flags::CRI_DOCKERD] {
            let findings = lint(&list, flags, List::Effective, None);
            let controls: Vec<(usize, &str, Option<&Fix>)> = findings
                .iter()
                .filter(|f| f.code.as_str() == "control-character")
                .map(|f| (f.index, f.severity.as_str(), f.fix.as_ref()))
                .collect();
            assert_eq!(controls, [(0, "error", None), (2, "error", None), (4, "error", None)], "{flags:?}");
            let said = |i: usize| {
                findings
                    .iter()
                    .find(|f| f.index == i && f.code.as_str() == "control-character")
                    .unwrap()
                    .message
                    .as_str()
            };
            assert!(said(0).starts_with("the control character \\u{0} (U+0000) at byte 9"), "{}", said(0));
            assert!(said(2).starts_with("the control character \\u{1b} (U+001B) at byte 0"), "{}", said(2));
            // No finding offers a text without the control character.
            let offered = |i: usize| findings.iter().any(|f| f.index == i && matches!(f.fix, Some(Fix::Write(_))));
            assert!(!offered(0) && !offered(2) && !offered(4), "{flags:?}: {findings:#?}");
        }
    }

    #[test]
    fn the_verdict_is_the_librarys_even_past_the_size_limit() {
        assert_eq!(verdict(b"quay.io/*"), None);
        assert_eq!(verdict(b""), Some(ErrorKind::Empty));
        assert_eq!(verdict(b"*"), Some(ErrorKind::LoneStar));
        assert_eq!(verdict(b"a\xffb"), Some(ErrorKind::NotUtf8 { valid_up_to: 1 }));
        assert_eq!(verdict(b"*pause"), Some(ErrorKind::LeadingStar { at: 0 }));
        // One pattern over the limit of a whole list: the library refuses it
        // for its size first; the lint reports what is wrong with its text.
        let mut huge = vec![b'a'; crio_pin::MAX_PATTERN_BYTES + 1];
        assert_eq!(verdict(&huge), None);
        huge[3] = b' ';
        assert_eq!(verdict(&huge), Some(ErrorKind::Whitespace { at: 3, ch: ' ' }));
        huge[2] = 0xff;
        assert_eq!(verdict(&huge), Some(ErrorKind::NotUtf8 { valid_up_to: 2 }));
    }
}
