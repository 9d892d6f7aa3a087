//! The per-version models: how containerd 2.3 (each file migrated, then
//! merged) and 2.0 to 2.2 (merged, then migrated once) arrive at the
//! plugins' table, and the warnings where the two would pin differently.

use std::collections::BTreeMap;

use super::load::FileDoc;
use super::migrate::{merge, migrate_cri, same, v1_rename};
use super::pins::{decode_pins, pinned_view, Pin};
use super::tree::{quote_key, warning_at, Node, Table, Value};
use super::{Stop, CONFIG_VERSION, CONFIG_VERSION_2_2, IMAGES_PLUGIN};
use crate::codes::WarningCode;
use crate::error::InputError;
use crate::list::Warning;

/// containerd 2.3: each file migrated to version 4, then merged.
pub(super) fn model_2_3(docs: &[FileDoc], warnings: &mut Vec<Warning>) -> Result<Table, InputError> {
    let mut out = Table::new();
    let mut root_version = 0;
    let mut higher_said = false;
    for doc in docs {
        // The check of 2.3.0 to 2.3.4.
        if root_version == 0 {
            root_version = doc.version;
        }
        if doc.version > root_version && !higher_said {
            higher_said = true;
            warnings.push(Warning {
                code: WarningCode::VersionDependent,
                severity: "warning",
                file: Some(doc.shown.to_string()),
                line: None,
                message: format!(
                    "{} has version {}, higher than the {root_version} of {}: containerd 2.3.0 to 2.3.4 refuse \
                     to start (\"drop-in config version {} higher than root config version {root_version}\"); \
                     later releases read it: give the files the same version",
                    doc.shown, doc.version, docs[0].shown, doc.version
                ),
            });
        }
        let mut plugins = doc.plugins.clone();
        for step in doc.version..CONFIG_VERSION {
            if step == 1 {
                v1_rename(&mut plugins, &doc.shown, Some(warnings));
            }
            migrate_cri(&mut plugins, step, CONFIG_VERSION, doc.version, Some(warnings)).map_err(Stop::error)?;
        }
        let before = pinned_view(&out);
        merge(&mut out, plugins);
        for (key, new) in pinned_view(&out) {
            let Some(old) = before.get(&key) else { continue };
            if old.at != new.at && !same(&old.value, &new.value) {
                let value = |n: &Node| match &n.value {
                    Value::String(s) => format!("{s:?}"),
                    other => other.what(),
                };
                warnings.push(warning_at(
                    WarningCode::OverriddenKey,
                    &new.at,
                    format!(
                        "{}: pinned_images.{} = {} replaces {} set at {}: containerd merges pinned_images key \
                         by key across files, the one read last wins; to keep both images, give them different \
                         keys",
                        new.at.show(),
                        quote_key(&key),
                        value(&new),
                        value(old),
                        old.at.show()
                    ),
                ));
            }
        }
    }
    Ok(out)
}

/// containerd 2.0 to 2.2: files of version 0 or 1 migrated to the version
/// merged so far (names only), every file merged, then the plugins'
/// migrations run once over the whole when the merged version is below 3.
pub(super) fn model_2_2(docs: &[FileDoc]) -> Result<Table, Stop> {
    let mut out = Table::new();
    let mut out_version = CONFIG_VERSION_2_2;
    let mut set_by = None;
    for doc in docs {
        let mut plugins = doc.plugins.clone();
        let mut version = doc.version;
        if version == 0 || version == 1 {
            if out_version > CONFIG_VERSION_2_2 {
                return Err(Stop::Crashes(format!(
                    "{}: a file without version (or version 1) read after one of version {out_version} \
                     (index out of range in MigrateConfigTo)",
                    doc.shown
                )));
            }
            v1_rename(&mut plugins, &doc.shown, None);
            version = out_version;
        } else {
            set_by = Some(&doc.shown);
        }
        merge(&mut out, plugins);
        out_version = version;
    }
    if let (true, Some(file)) = (out_version > CONFIG_VERSION_2_2, set_by) {
        return Err(Stop::Refuses(format!(
            "{file} has version {out_version}, and is the last file with a version: they know versions up to \
             {CONFIG_VERSION_2_2}"
        )));
    }
    for step in out_version..CONFIG_VERSION_2_2 {
        migrate_cri(&mut out, step, CONFIG_VERSION_2_2, out_version, None)?;
    }
    Ok(out)
}

/// Says when containerd 2.0 to 2.2 would pin otherwise, or not start.
pub(super) fn compare_2_2(docs: &[FileDoc], pins: &BTreeMap<String, Pin>, warnings: &mut Vec<Warning>) {
    let why = "containerd 2.0 to 2.2 move sandbox_image into pinned_images once, over all files merged, and only \
               when the last file with a version has version 2; 2.3 migrates every file of version 1 to 3 (none \
               is 1) by itself";
    let older = match model_2_2(docs).and_then(|plugins| decode_pins(&plugins, None)) {
        Ok(older) => older,
        Err(stop) => {
            let how = if matches!(stop, Stop::Crashes(_)) { "crash at start-up" } else { "refuse to start" };
            warnings.push(Warning {
                code: WarningCode::VersionDependent,
                severity: "warning",
                file: None,
                line: None,
                message: format!("containerd 2.0 to 2.2 would {how}: {}", stop.text()),
            });
            return;
        }
    };
    let mut differences = Vec::new();
    let mut first_at = None;
    let keys: std::collections::BTreeSet<&String> = pins.keys().chain(older.keys()).collect();
    for key in keys {
        let (new, old) = (pins.get(key), older.get(key));
        let difference = match (new, old) {
            (Some(new), Some(old)) if new.value == old.value => continue,
            (Some(new), Some(old)) => format!("{} = {:?} instead of {:?}", quote_key(key), old.value, new.value),
            (Some(_), None) => format!("no {}", quote_key(key)),
            (None, Some(old)) => format!("{} = {:?} as well", quote_key(key), old.value),
            (None, None) => continue,
        };
        differences.push(difference);
        if first_at.is_none() {
            first_at = new.and_then(|p| p.at.clone()).or_else(|| old.and_then(|p| p.at.clone()));
        }
    }
    if differences.is_empty() {
        return;
    }
    let shown = differences.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    let more = if differences.len() > 3 { format!(" and {} more", differences.len() - 3) } else { String::new() };
    warnings.push(Warning {
        code: WarningCode::VersionDependent,
        severity: "warning",
        file: first_at.as_ref().map(|at| at.file.to_string()),
        line: first_at.as_ref().map(|at| at.line),
        message: format!(
            "containerd 2.0 to 2.2 would pin otherwise: {shown}{more} ({why}); to pin the same with every 2.x, \
             write version = 3 and the images in [plugins.\"{IMAGES_PLUGIN}\".pinned_images] in every file"
        ),
    });
}
