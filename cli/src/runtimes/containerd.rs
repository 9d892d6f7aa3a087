//! containerd's names of an image: a record for each name a pull stores
//! (the tag, the repository@digest) and one for the image ID `sha256:…`,
//! every one compared with the configured values (image_pull.go:
//! getLabels, UpdateImage), whatever the pull.

use super::{Held, Model, RegistryImage, StoredName};

pub struct Containerd;

impl Model for Containerd {
    fn stored_names(&self, image: &RegistryImage) -> Vec<StoredName> {
        let names = image.tags.iter().chain(&image.digests).chain(&image.id);
        names.map(|n| StoredName { text: n.clone(), held: Held::Always }).collect()
    }
}
