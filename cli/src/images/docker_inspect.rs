//! `docker image inspect`: Docker's images with the labels of their config
//! (`Config.Labels`), which cri-dockerd's `--pinned-image-labels` selects
//! by and crictl's listing does not show. A JSON array of objects; the tool
//! reads `Id` (the config digest, crictl's `id` for the same image),
//! `RepoTags` and `RepoDigests` (the familiar names cri-dockerd compares)
//! and `Config.Labels` (null when the image has none).

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::error::InputError;
use crate::images::{self, Image, Naming};

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Inspected {
    /// Required: it tells Docker's image from other JSON.
    id: String,
    #[serde(default)]
    repo_tags: Option<Vec<String>>,
    #[serde(default)]
    repo_digests: Option<Vec<String>>,
    #[serde(default)]
    config: Option<Config>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Config {
    #[serde(default)]
    labels: Option<BTreeMap<String, String>>,
}

/// The images of `docker image inspect`'s array, with their labels.
pub fn parse(path: &str, bytes: &[u8], naming: Naming) -> Result<Vec<Image>, InputError> {
    let inspected: Vec<Inspected> = serde_json::from_slice(bytes).map_err(|e| {
        InputError(format!(
            "{path}:{}:{}: {e}; this looks like `docker image inspect` (its keys capitalised), whose objects \
             have Id, RepoTags, RepoDigests and Config.Labels: give its whole output (`docker image inspect \
             $(docker image ls -q)`), or --images takes {}",
            e.line(),
            e.column(),
            images::EXPECTED
        ))
    })?;
    Ok(inspected
        .into_iter()
        .map(|i| {
            let labels = i.config.and_then(|c| c.labels).unwrap_or_default().into_iter().collect();
            images::with_labels(
                i.id,
                i.repo_tags.unwrap_or_default(),
                i.repo_digests.unwrap_or_default(),
                labels,
                naming,
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Runtime;

    #[test]
    fn an_image_has_its_names_and_its_configs_labels() {
        let id = format!("sha256:{}", "1".repeat(64));
        let json = format!(
            "[{{\"Id\": \"{id}\", \"RepoTags\": [\"nginx:1.25\"], \"RepoDigests\": [\"nginx@sha256:{}\"], \
             \"Config\": {{\"Labels\": {{\"pin\": \"yes\"}}}}}}, {{\"Id\": \"sha256:{}\", \"RepoTags\": [], \
             \"Config\": {{\"Labels\": null}}}}]",
            "2".repeat(64),
            "3".repeat(64)
        );
        let images = parse("i", json.as_bytes(), Runtime::CriDockerd.model().naming()).unwrap();
        assert_eq!(images[0].id.as_deref(), Some(id.as_str()));
        assert_eq!(images[0].names[0].text, "nginx:1.25");
        assert_eq!(images[0].labels.as_deref(), Some(&[("pin".to_string(), "yes".to_string())][..]));
        assert_eq!(images[1].labels.as_deref(), Some(&[][..]));
        assert!(parse("i", b"[{\"Id\": 3}]", Runtime::CriDockerd.model().naming()).is_err());
    }
}
