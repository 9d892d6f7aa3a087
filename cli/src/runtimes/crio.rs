//! CRI-O's names of an image: the references in its storage only. A live
//! CRI-O v1.37 showed (tests/data/crio-listings): a pull by tag stores
//! `repo:tag` only, and the repoDigest crictl prints for it is computed; a
//! pull by digest stores `repo@sha256:…`; a pull both ways stores both. So
//! the digest of a repository that also has a tag is held only if the image
//! was pulled by it.

use super::{repository, Held, Model, RegistryImage, StoredName};

pub struct Crio;

impl Model for Crio {
    fn stored_names(&self, image: &RegistryImage) -> Vec<StoredName> {
        let tags = image.tags.iter().map(|t| StoredName { text: t.clone(), held: Held::Always });
        let digests = image.digests.iter().map(|d| {
            let tagged = image.tags.iter().any(|t| repository(t) == repository(d));
            StoredName { text: d.clone(), held: if tagged { Held::IfPulledByDigest } else { Held::Always } }
        });
        tags.chain(digests).collect()
    }
}
