//! cri-dockerd's configuration as the tool reads it: its `--pinned-images`
//! flag values, split as cri-dockerd splits them.

use crate::codes::WarningCode;
use crate::error::InputError;
use crate::list::{Entry, Resolved, Warning};
use crate::{images, show};

/// cri-dockerd's `--pinned-images`: each value split as cri-dockerd's
/// flag splits it (a comma-separated list: `split_flag_value`), each
/// part one pattern (the library trims it as cri-dockerd does).
pub fn read(values: &[String]) -> Result<Resolved, InputError> {
    let mut resolved = Resolved::default();
    for value in values {
        let parts = split_flag_value(value).map_err(|why| {
            InputError(format!(
                "--pinned-images {}: cri-dockerd reads the value as a comma-separated list (CSV) and refuses it \
                 ({why}): quote a part that holds a comma or a quote (\"a,b\"), doubling its quotes",
                show::quote(value)
            ))
        })?;
        if let Some(why) = surprising_split(value, &parts) {
            let quoted: Vec<String> = parts.iter().map(|p| show::quote(p)).collect();
            resolved.warnings.push(Warning::new(
                WarningCode::SplitValue,
                format!(
                    "--pinned-images {}: cri-dockerd splits the value at its commas (the flag is a pflag \
                     StringSlice), so it pins by the {} patterns {}, and {why}; give each pattern as its own \
                     --pinned-images",
                    show::quote(value),
                    parts.len(),
                    quoted.join(", ")
                ),
            ));
        }
        resolved.entries.extend(parts.into_iter().map(|part| Entry {
            text: part.into_bytes(),
            source: "flag".to_string(),
            defined_at: None,
            at: None,
            key: None,
        }));
    }
    Ok(resolved)
}

/// Why a value's split is probably not what the operator meant, if it is
/// not: `a,b` listing names is the flag's ordinary form, but quotes (CSV's
/// rule, which few expect of a flag) or a part that cannot be the start of
/// an image name (empty, blanks inside, `v2` of `quay.io/app:v1,v2` is a
/// name) say the commas were meant otherwise.
fn surprising_split(value: &str, parts: &[String]) -> Option<String> {
    if parts.len() < 2 {
        return None;
    }
    if value.contains('"') {
        return Some("a quoted part keeps its commas (CSV's rule)".into());
    }
    let odd = parts.iter().map(|p| p.trim()).find(|p| !starts_a_name(p))?;
    Some(format!("{} is no image name", show::quote(odd)))
}

/// Whether a trimmed part is an image name, or the prefix of one before a
/// closing `*` (`registry.k8s.io/kube-*`).
fn starts_a_name(part: &str) -> bool {
    let name = match part.strip_suffix('*') {
        Some(prefix) => format!("{prefix}x"),
        None => part.to_string(),
    };
    !name.contains(char::is_whitespace) && images::normalized(&name).is_ok()
}

/// The patterns cri-dockerd reads from one `--pinned-images` value. The flag
/// is declared with pflag's `StringSliceVar` (config/options.go,
/// `AddFlags`, in the branch of PR 571 that adds it), which reads each value
/// as one line of CSV (`readAsCSV`, Go's encoding/csv): split at commas, a
/// field may be quoted (`"a,b"` is one part, `""` in it a quote), a quote
/// inside an unquoted field is an error that stops cri-dockerd, and only the
/// first line counts. The empty value is no pattern at all. Each part is
/// then trimmed by the matcher (`newPinnedImageMatcher`), not here.
pub fn split_flag_value(value: &str) -> Result<Vec<String>, String> {
    if value.is_empty() {
        return Ok(Vec::new());
    }
    let line = value.split('\n').next().unwrap_or_default();
    let line = line.strip_suffix('\r').unwrap_or(line);
    let mut parts = Vec::new();
    let mut rest = line;
    loop {
        let (part, after) = match rest.strip_prefix('"') {
            Some(quoted) => quoted_field(quoted)?,
            None => {
                let end = rest.find(',').unwrap_or(rest.len());
                if rest[..end].contains('"') {
                    return Err("bare \" in non-quoted-field".into());
                }
                (rest[..end].to_owned(), &rest[end..])
            }
        };
        parts.push(part);
        match after.strip_prefix(',') {
            Some(next) => rest = next,
            None => return Ok(parts),
        }
    }
}

/// One `--pinned-images` value that `split_flag_value` reads back as
/// `values`: joined by commas, a value with a comma or a quote quoted (its
/// quotes doubled). None when a value holds a line break, which the flag
/// cannot carry (it reads the first line only).
pub fn flag_value(values: &[&str]) -> Option<String> {
    let mut parts = Vec::with_capacity(values.len());
    for v in values {
        if v.contains(['\n', '\r']) {
            return None;
        }
        parts.push(if v.contains([',', '"']) { format!("\"{}\"", v.replace('"', "\"\"")) } else { v.to_string() });
    }
    Some(parts.join(","))
}

/// A quoted CSV field (after its opening quote): its text, and what follows
/// its closing quote.
fn quoted_field(mut rest: &str) -> Result<(String, &str), String> {
    let mut text = String::new();
    loop {
        let Some(at) = rest.find('"') else { return Err("extraneous or missing \" in quoted-field".into()) };
        text.push_str(&rest[..at]);
        rest = &rest[at + 1..];
        match rest.strip_prefix('"') {
            Some(after) => {
                text.push('"');
                rest = after;
            }
            None if rest.is_empty() || rest.starts_with(',') => return Ok((text, rest)),
            None => return Err("extraneous or missing \" in quoted-field".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_value_splits_as_pflag_reads_a_string_slice() {
        let split = |v: &str| split_flag_value(v);
        assert_eq!(split("nginx,registry.k8s.io/pause:3.10").unwrap(), ["nginx", "registry.k8s.io/pause:3.10"]);
        assert_eq!(split("nginx").unwrap(), ["nginx"]);
        assert_eq!(split("").unwrap(), Vec::<String>::new());
        assert_eq!(split("a,,b").unwrap(), ["a", "", "b"]);
        assert_eq!(split(" a , b").unwrap(), [" a ", " b"]);
        assert_eq!(split("\"a,b\",c").unwrap(), ["a,b", "c"]);
        assert_eq!(split("\"say \"\"hi\"\"\"").unwrap(), ["say \"hi\""]);
        assert_eq!(split("a\nb,c").unwrap(), ["a"]);
        assert!(split("a\"b").is_err());
        assert!(split("\"a\"b").is_err());
        assert!(split("\"a").is_err());
    }

    #[test]
    fn a_flag_value_is_written_as_it_is_read_back() {
        for values in
            [&["nginx", "registry.k8s.io/pause:3.10"][..], &["a,b", "c"], &["say \"hi\"", " x "], &["a", "", "b"]]
        {
            let value = flag_value(values).unwrap();
            assert_eq!(split_flag_value(&value).unwrap(), values, "{value}");
        }
        assert_eq!(flag_value(&["a", "b"]).as_deref(), Some("a,b"));
        assert_eq!(flag_value(&["a\nb"]), None);
    }
}
