//! Decoding `pinned_images` from the merged plugins' table as the image
//! plugin's Config.Decode does: over its defaults (the sandbox image),
//! each key in go-toml's order, a value that is not a string a stop.

use std::collections::BTreeMap;

use super::tree::{go_lower, quote_key, warning_at, At, Node, Table, Value};
use super::{Stop, DEFAULT_SANDBOX_IMAGE, IMAGES_PLUGIN};
use crate::codes::WarningCode;
use crate::list::Warning;

/// The keys of the image plugin's table that go-toml decodes as
/// pinned_images, in the order it decodes them (go-toml writes a map's
/// keys in byte order).
pub(super) fn pinned_tables(plugins: &Table) -> Vec<(&String, &Node)> {
    match plugins.get(IMAGES_PLUGIN) {
        Some(Node { value: Value::Table(t), .. }) => t.iter().filter(|(k, _)| go_lower(k) == "pinned_images").collect(),
        _ => Vec::new(),
    }
}

/// The pinned keys as they stand, type errors aside.
pub(super) fn pinned_view(plugins: &Table) -> BTreeMap<String, Node> {
    let mut view = BTreeMap::new();
    for (_, node) in pinned_tables(plugins) {
        if let Value::Table(t) = &node.value {
            view.extend(t.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
    }
    view
}

/// One pinned image: its value, and where it was set (none: the default).
pub(super) struct Pin {
    pub(super) value: String,
    pub(super) at: Option<At>,
}

/// Config.Decode of the image plugin over its defaults.
pub(super) fn decode_pins(plugins: &Table, warnings: Option<&mut Vec<Warning>>) -> Result<BTreeMap<String, Pin>, Stop> {
    let mut pins =
        BTreeMap::from([("sandbox".to_string(), Pin { value: DEFAULT_SANDBOX_IMAGE.to_string(), at: None })]);
    let pinned_header = format!("[plugins.\"{IMAGES_PLUGIN}\".pinned_images]");
    if let Some(node) = plugins.get(IMAGES_PLUGIN) {
        if !matches!(node.value, Value::Table(_)) {
            return Err(Stop::Refuses(format!(
                "{}: plugins.\"{IMAGES_PLUGIN}\" is {}, not a table (write {pinned_header} and its keys)",
                node.at.show_col(),
                node.value.what()
            )));
        }
    }
    let tables = pinned_tables(plugins);
    if let (Some(warnings), true) = (warnings, tables.len() > 1) {
        let (_, last) = tables[tables.len() - 1];
        let keys: Vec<String> = tables.iter().map(|(k, n)| format!("{k:?} ({})", n.at.show())).collect();
        warnings.push(warning_at(
            WarningCode::AmbiguousKey,
            &last.at,
            format!(
                "[plugins.\"{IMAGES_PLUGIN}\"] has {} keys that containerd reads as pinned_images (keys match in \
                 lower case): {}; containerd decodes them one after the other in byte order of the keys, \
                 whatever the files' order, the last one winning for a key: keep only pinned_images",
                tables.len(),
                keys.join(", ")
            ),
        ));
    }
    for (name, node) in tables {
        let Value::Table(entries) = &node.value else {
            return Err(Stop::Refuses(format!(
                "{}: {name} is {}, not a table of image references (write {pinned_header} and under it lines \
                 such as sandbox = \"{DEFAULT_SANDBOX_IMAGE}\")",
                node.at.show_col(),
                node.value.what()
            )));
        };
        for (key, entry) in entries {
            let Value::String(value) = &entry.value else {
                return Err(Stop::Refuses(format!(
                    "{}: {name}.{} is {}, not a string (write {} = \"registry.example/image:tag\")",
                    entry.at.show_col(),
                    quote_key(key),
                    entry.value.what(),
                    quote_key(key)
                )));
            };
            pins.insert(key.clone(), Pin { value: value.clone(), at: Some(entry.at.clone()) });
        }
    }
    Ok(pins)
}
