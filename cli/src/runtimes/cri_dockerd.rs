//! cri-dockerd's names of an image: the RepoTags and RepoDigests Docker
//! reports, in Docker's familiar form (`nginx:1`, `bitnami/etcd:3.5`: no
//! `docker.io/`, no `library/` before a one-part path), every one of them
//! whatever the pull.

use super::{Held, Model, RegistryImage, StoredName};

pub struct CriDockerd;

impl Model for CriDockerd {
    fn stored_names(&self, image: &RegistryImage) -> Vec<StoredName> {
        let names = image.tags.iter().chain(&image.digests);
        names.map(|n| StoredName { text: self.stored_form(n).to_owned(), held: Held::Always }).collect()
    }

    fn stored_form<'a>(&self, reference: &'a str) -> &'a str {
        crate::images::familiar(reference).unwrap_or(reference)
    }
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
}
