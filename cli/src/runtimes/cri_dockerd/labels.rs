//! cri-dockerd's `--pinned-image-labels`: images pinned by the labels of
//! their config (`docker image inspect`: Config.Labels), which the image's
//! author sets, so any image can pin itself by carrying the label. Each
//! value is split at its commas as `--pinned-images` is (a pflag
//! StringSlice); each part is `KEY` (any value) or `KEY=VALUE`.

use super::flags::split_flag_value;
use crate::codes::WarningCode;
use crate::error::InputError;
use crate::images::Image;
use crate::labels::{LabelPin, LabelSelector};
use crate::list::Warning;
use crate::runtimes::label_warnings::near_miss;
use crate::show;

/// The selectors of `--pinned-image-labels` values, and a warning for
/// each: an image's author sets its labels (and a key a few letters from
/// containerd's says more).
pub fn read(values: &[String]) -> Result<(Vec<LabelSelector>, Vec<Warning>), InputError> {
    let mut selectors = Vec::new();
    for value in values {
        let parts = split_flag_value(value).map_err(|why| {
            InputError(format!(
                "--pinned-image-labels {}: cri-dockerd reads the value as a comma-separated list (CSV) and \
                 refuses it ({why}): quote a part that holds a comma or a quote (\"a,b\"), doubling its quotes",
                show::quote(value)
            ))
        })?;
        selectors.extend(parts.iter().filter(|p| !p.trim().is_empty()).map(|p| LabelSelector::parse(p)));
    }
    let mut warnings = Vec::new();
    for s in &selectors {
        warnings.push(Warning::new(
            WarningCode::SelfPinningSelector,
            format!(
                "--pinned-image-labels {}: cri-dockerd pins every image whose config carries this label, and an \
                 image's labels are set by its author (a Dockerfile's LABEL): any image pulled onto the node can \
                 pin itself so, and the kubelet then never removes it to free disk space (containerd \
                 stopped trusting its own pin labels in image configs in v2.4.0); pin by name with --pinned-images instead",
                show::quote(&s.text)
            ),
        ));
        if let Some(honoured) = near_miss(&s.key) {
            warnings.push(Warning::new(
                WarningCode::NearMissLabel,
                format!(
                    "--pinned-image-labels {}: the key {} is a few letters from {honoured}, which containerd (or \
                     k3s, rke2) pins by; cri-dockerd selects by exactly this key, and no runtime sets it",
                    show::quote(&s.text),
                    show::quote(&s.key)
                ),
            ));
        }
    }
    Ok((selectors, warnings))
}

/// Why cri-dockerd pins `image` by a label, if one of `selectors` selects it.
pub fn label_pin(image: &Image, selectors: &[LabelSelector]) -> Option<LabelPin> {
    let labels = image.labels.as_deref()?;
    selectors.iter().find_map(|s| {
        s.selects(labels).map(|(key, value)| LabelPin {
            label: format!("{key}={value}"),
            set_by: "image's author",
            why: format!(
                "cri-dockerd's --pinned-image-labels {} selects it by a label of its config, which the image's \
                 author set: any image can pin itself so",
                show::quote(&s.text)
            ),
        })
    })
}
