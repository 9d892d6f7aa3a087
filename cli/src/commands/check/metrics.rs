//! `check --format openmetrics`: the check's counts as an OpenMetrics text
//! exposition, for a metrics collector (a textfile of node_exporter's, a
//! scrape of a DaemonSet's): every family a gauge, so that Prometheus' own
//! text parser (node_exporter's) reads it as OpenMetrics parsers do, and
//! the `# EOF` OpenMetrics ends with (a comment to the other). Few series
//! by default, their labels of a small set (`runtime`, `severity`); one
//! series per pattern only when asked (`--metrics-per-pattern`), since a
//! list of 20,000 digests would be 20,000 series.

use std::fmt::Write;

use super::Summary;
use crate::commands::explain::Explanation;
use crate::cri::running::Compared;
use crate::list::Resolved;

/// What the metrics are made of: one check's reading.
pub struct Measured<'a> {
    pub summary: &'a Summary,
    pub resolved: &'a Resolved,
    pub explanation: &'a Explanation,
    /// The version the runtime's socket answered with (None: a listing).
    pub runtime_version: Option<&'a str>,
    pub running: Option<&'a Compared>,
}

/// Writes the exposition of `m`.
pub fn write(out: &mut Vec<u8>, m: &Measured<'_>, per_pattern: bool) {
    let s = m.summary;
    let report = &m.explanation.report;
    let pins = &report.pattern_images;
    let mut text = String::new();
    let runtime = [("runtime", s.runtime)];
    let mut info: Vec<(&str, &str)> = runtime.to_vec();
    info.extend(m.runtime_version.map(|v| ("runtime_version", v)));
    info.push(("fingerprint", &s.fingerprint));
    info.extend(m.running.and_then(|r| r.fingerprint.as_deref()).map(|f| ("running_fingerprint", f)));
    let help = "the check's runtime, the version its socket answered with, the fingerprint of the list it \
                compiles by the files, and by its own configuration (CRI-O's)";
    family(&mut text, "info", help, &[(&info, 1)]);
    let one = |help: &'static str, value: usize| (help, vec![(&runtime[..], value)]);
    let counts = [
        (
            "check_status",
            one(
                "the check's exit status: 0 all right, 1 a finding, 2 unusable input or a refused list",
                s.exit_status.into(),
            ),
        ),
        ("patterns", one("patterns of the list in force", s.patterns)),
        ("patterns_unused", one("patterns that pin no image of this node", pins.iter().filter(|&&n| n == 0).count())),
        ("images", one("images the runtime lists", s.images)),
        ("images_pinned", one("images the list pins", s.pinned)),
        (
            "disagreements",
            one("images whose pinned flag from the runtime differs from the list's answer", s.disagreements),
        ),
        ("undecided", one("images pinned or not depending on how they were pulled", s.undecided)),
        ("refused_patterns", one("patterns that make a list refused, now or after a reload", s.refused)),
    ];
    for (name, (help, series)) in &counts {
        family(&mut text, name, help, series);
    }
    let severities = [
        ([("runtime", s.runtime), ("severity", "error")], s.lint_errors),
        ([("runtime", s.runtime), ("severity", "warning")], s.lint_warnings + s.configuration_warnings),
        ([("runtime", s.runtime), ("severity", "note")], s.lint_notes),
    ];
    let series: Vec<(&[(&str, &str)], usize)> = severities.iter().map(|(l, n)| (&l[..], *n)).collect();
    family(&mut text, "lint_findings", "lint's findings and the configuration's warnings, by severity", &series);
    if let Some(verified) = s.kubelet_verified_pinned {
        let help = "pinned images the kubelet pulls again before a pod uses them (--kubelet-config)";
        family(&mut text, "kubelet_verified_pins", help, &[(&runtime, verified)]);
    }
    if let Some(unpinned) = s.kubelet_allowlisted_unpinned {
        let help = "images the kubelet's allowlist trusts as preloaded that the list does not pin, which the \
                    garbage collector may delete (--kubelet-config)";
        family(&mut text, "kubelet_allowlisted_unpinned", help, &[(&runtime, unpinned)]);
    }
    if let Some(recorded) = s.kubelet_recorded_pins {
        let help = "pinned images the kubelet pulls again because of their pull records: no longer preloaded \
                    (--kubelet-root-dir)";
        family(&mut text, "kubelet_recorded_pins", help, &[(&runtime, recorded)]);
    }
    if let Some(same) = m.running.and_then(|r| r.same) {
        let help = "1 when the running runtime's own configuration holds the files' list, 0 when another";
        family(&mut text, "running_list_same", help, &[(&runtime, usize::from(same))]);
    }
    if per_pattern {
        let labels: Vec<[(&str, String); 3]> = m
            .resolved
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| [("index", i.to_string()), ("pattern", e.display()), ("source", e.source.clone())])
            .collect();
        let labels: Vec<Vec<(&str, &str)>> =
            labels.iter().map(|l| l.iter().map(|(k, v)| (*k, v.as_str())).collect()).collect();
        let series: Vec<(&[(&str, &str)], usize)> = labels.iter().map(|l| &l[..]).zip(pins.iter().copied()).collect();
        family(&mut text, "pattern_images", "images each pattern pins (the lowest index that matches)", &series);
    }
    text.push_str("# EOF\n");
    out.extend_from_slice(text.as_bytes());
}

/// One gauge family: its `# HELP`, `# TYPE` and series.
fn family(text: &mut String, name: &str, help: &str, series: &[(&[(&str, &str)], usize)]) {
    let _ = writeln!(text, "# HELP crio_pin_{name} {help}");
    let _ = writeln!(text, "# TYPE crio_pin_{name} gauge");
    for (labels, value) in series {
        let labels: Vec<String> = labels.iter().map(|(k, v)| format!("{k}=\"{}\"", escape(v))).collect();
        let _ = writeln!(text, "crio_pin_{name}{{{}}} {value}", labels.join(","));
    }
}

/// A label value as both formats write one: backslash, double quote and
/// newline escaped.
fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn label_values_escape_what_ends_them() {
        assert_eq!(escape("quay.io/*"), "quay.io/*");
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
