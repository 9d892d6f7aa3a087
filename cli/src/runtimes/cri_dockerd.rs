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
