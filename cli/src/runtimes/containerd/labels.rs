//! The label containerd pins by: `io.cri-containerd.pinned=pinned` on an
//! image record (internal/cri/labels; the CRI image store takes an image
//! for pinned when one of its records carries it). containerd sets it when
//! a pinned_images value matches at a pull or at start-up and never
//! removes it; k3s and rke2 set it, with a mark of their own, on what they
//! import from their images directory, and re-pin exactly those at every
//! start (k3s #11363). Since v2.4.0-beta.0 containerd ignores
//! `io.cri-containerd*` labels an image's config carries, so an image can
//! no longer pin itself: only a record's label, as ctr shows it, counts.

use crate::images::ctr_listing::PinLabels;
use crate::images::Image;
use crate::labels::LabelPin;

pub const PINNED_KEY: &str = "io.cri-containerd.pinned";
pub const PINNED_VALUE: &str = "pinned";

const K3S_MARK: &str = "io.cattle.k3s.pinned";
const RKE2_MARK: &str = "io.cattle.rke2.pinned";

/// The distributions that mark what they import, their mark (whose value
/// is `PINNED_VALUE`) and name.
pub const IMPORTERS: &[(&str, &str)] = &[(K3S_MARK, "k3s"), (RKE2_MARK, "rke2")];

/// The keys that pin, or mark a pin, on containerd: what `lint` measures
/// near-miss keys against.
pub const KEYS: &[&str] = &[PINNED_KEY, K3S_MARK, RKE2_MARK];

/// containerd's pin label and the labels written beside it, as the reader
/// of ctr's listing asks for them.
pub struct PinnedLabel;

impl PinLabels for PinnedLabel {
    fn pin(&self) -> (&'static str, &'static str) {
        (PINNED_KEY, PINNED_VALUE)
    }

    /// containerd's own mark of the images its CRI plugin manages, and the
    /// importers' marks.
    fn written_by_the_runtime(&self, key: &str, value: &str) -> bool {
        (key == "io.cri-containerd.image" && value == "managed")
            || IMPORTERS.iter().any(|(mark, _)| *mark == key) && value == PINNED_VALUE
    }
}

/// Why containerd pins `image` by its label, if it does.
pub fn label_pin(image: &Image) -> Option<LabelPin> {
    let labels = image.labels.as_deref()?;
    if !labels.iter().any(|(k, v)| k == PINNED_KEY && v == PINNED_VALUE) {
        return None;
    }
    let label = format!("{PINNED_KEY}={PINNED_VALUE}");
    let importer = IMPORTERS.iter().find(|(mark, _)| labels.iter().any(|(k, _)| k == mark));
    Some(match importer {
        Some((mark, name)) => LabelPin {
            label,
            set_by: if *name == "k3s" { "k3s import" } else { "rke2 import" },
            why: format!(
                "{name} labelled it when it imported it from its images directory (its mark: {mark}), and \
                 re-pins exactly the images of its tarballs and lists at every start: to unpin it, take it \
                 out of {name}'s images directory and restart {name}"
            ),
        },
        None => LabelPin {
            label,
            set_by: "containerd",
            why: format!(
                "containerd labelled it when a pinned_images value matched it at a pull or at start-up, and \
                 never removes the label, so it stays pinned after the value left the list; to unpin it, \
                 remove the label from each of its records (`ctr -n k8s.io images label REF {PINNED_KEY}=`), \
                 or remove the image (crictl rmi)"
            ),
        },
    })
}
