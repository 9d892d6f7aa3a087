//! Pins by label: an image a runtime pins because of a label it carries,
//! whatever the list says (containerd's `io.cri-containerd.pinned`, kept
//! after the value that set it left the list; k3s's and rke2's import
//! labels; cri-dockerd's `--pinned-image-labels`). Each runtime's module
//! says which labels it honours (`Model::label_pin`); this is the
//! vocabulary they share: the answer and the selectors. The keys that look
//! like an honoured one but are not are measured against every runtime's,
//! above them (`runtimes::label_warnings`).

use serde::Serialize;

/// Why a label pins an image (JSON `pinned_by_label`).
#[derive(Clone, Debug, Serialize)]
pub struct LabelPin {
    /// The label, `key=value`.
    pub label: String,
    /// Who set it, in a few words (the SOURCE column).
    pub set_by: &'static str,
    /// Why it is there and what to do about it.
    pub why: String,
}

/// A label selector of a runtime's configuration: `KEY` (any value) or
/// `KEY=VALUE`.
#[derive(Clone, Debug)]
pub struct LabelSelector {
    pub key: String,
    pub value: Option<String>,
    /// As given, for messages.
    pub text: String,
}

impl LabelSelector {
    pub fn parse(text: &str) -> LabelSelector {
        let (key, value) = match text.split_once('=') {
            Some((key, value)) => (key.trim(), Some(value.trim().to_owned())),
            None => (text.trim(), None),
        };
        LabelSelector { key: key.to_owned(), value, text: text.to_owned() }
    }

    /// The label of `labels` it selects, if any.
    pub fn selects<'l>(&self, labels: &'l [(String, String)]) -> Option<&'l (String, String)> {
        labels.iter().find(|(k, v)| *k == self.key && self.value.as_ref().is_none_or(|want| want == v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selector_without_a_value_selects_any_value() {
        let labels = vec![("pinned".to_string(), "true".to_string())];
        assert!(LabelSelector::parse("pinned").selects(&labels).is_some());
        assert!(LabelSelector::parse("pinned=true").selects(&labels).is_some());
        assert!(LabelSelector::parse("pinned=false").selects(&labels).is_none());
        assert!(LabelSelector::parse("other").selects(&labels).is_none());
    }
}
