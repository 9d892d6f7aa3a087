//! The warnings of a listing's labels, measured against the label keys of
//! every runtime (`Model::pinning_label_keys`): a row whose labels read two
//! ways, and a key that looks like an honoured one but is not.

use std::collections::BTreeMap;

use clap::ValueEnum;

use crate::codes::WarningCode;
use crate::images::Image;
use crate::list::Warning;
use crate::runtime::Runtime;
use crate::show;

/// The label keys some runtime pins by, or marks its pins with
/// (`Model::pinning_label_keys`).
fn honoured_keys() -> Vec<&'static str> {
    Runtime::value_variants().iter().flat_map(|r| r.model().pinning_label_keys()).copied().collect()
}

/// The honoured key `key` is probably a misspelling of: not one of them,
/// but within 3 edits of one (`io.cri.containerd.pinned`,
/// `io.cri-containerd.pin`). Keys a runtime sets for other ends
/// (`io.cri-containerd.image`) are further away.
pub fn near_miss(key: &str) -> Option<&'static str> {
    let honoured = honoured_keys();
    if honoured.contains(&key) {
        return None;
    }
    honoured
        .into_iter()
        .map(|honoured| (strsim::damerau_levenshtein(key, honoured), honoured))
        .filter(|&(distance, _)| distance <= 3)
        .min()
        .map(|(_, honoured)| honoured)
}

/// An `ambiguous-label` warning for each row of a listing whose labels
/// read two ways, then a `near-miss-label` warning for each label key of
/// its images that is a near miss, with the images that carry it.
pub fn listing_warnings(images: &[Image]) -> Vec<Warning> {
    let doubts = images.iter().flat_map(|i| &i.label_doubts).map(|d| {
        Warning::at(
            WarningCode::AmbiguousLabel,
            &d.file,
            d.line,
            format!(
                "{}:{}: {}; give crictl's listing too (crictl images -o json, whose pinned flag says what the \
                 runtime decided), or relabel the image so no value holds a comma",
                show::escape(&d.file),
                d.line,
                show::escape(&d.why)
            ),
        )
    });
    doubts.chain(near_misses(images)).collect()
}

fn near_misses(images: &[Image]) -> Vec<Warning> {
    let mut found: BTreeMap<&str, (&'static str, Vec<&str>)> = BTreeMap::new();
    for image in images {
        for (key, _) in image.labels.iter().flatten() {
            if let Some(honoured) = near_miss(key) {
                let name = image.names.first().map_or("", |n| n.text.as_str());
                found.entry(key).or_insert((honoured, Vec::new())).1.push(name);
            }
        }
    }
    found
        .into_iter()
        .map(|(key, (honoured, names))| {
            let shown: Vec<String> = names.iter().take(3).map(|n| show::name(n).into_owned()).collect();
            let more = if names.len() > 3 { format!(" and {} more", names.len() - 3) } else { String::new() };
            Warning::new(
                WarningCode::NearMissLabel,
                format!(
                    "the label {} of {} image(s) ({}{more}) is a few letters from {honoured}, which a runtime pins \
                     by; no runtime honours {}, so it pins nothing: if a pin was meant, label the image {honoured} \
                     (containerd: `ctr -n k8s.io images label REF {honoured}=pinned`) and remove this one",
                    show::quote(key),
                    names.len(),
                    shown.join(", "),
                    show::quote(key)
                ),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses_are_close_to_an_honoured_key_and_not_one() {
        assert_eq!(near_miss("io.cri.containerd.pinned"), Some("io.cri-containerd.pinned"));
        assert_eq!(near_miss("io.cri-containerd.pin"), Some("io.cri-containerd.pinned"));
        assert_eq!(near_miss("io.cattle.k3s.pined"), Some("io.cattle.k3s.pinned"));
        assert_eq!(near_miss("io.cri-containerd.pinned"), None);
        assert_eq!(near_miss("io.cri-containerd.image"), None);
        assert_eq!(near_miss("org.opencontainers.image.title"), None);
    }
}
