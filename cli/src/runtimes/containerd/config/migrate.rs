//! Version migration: what containerd does to a file of an older
//! `version` before it merges it (plugin names of version 1 renamed, the
//! CRI plugin's `sandbox_image` moved into the image plugin's
//! `pinned_images.sandbox`), and the merge itself (mergo with override).

use super::tree::{quote_key, warning_at, Node, Table, Value};
use super::{Stop, CRI_PLUGIN, IMAGES_PLUGIN};
use crate::codes::WarningCode;
use crate::list::Warning;

/// The settings the CRI plugin's own migration keeps (plugins/cri/cri.go).
pub(super) const STREAMING_KEYS: [&str; 6] = [
    "disable_tcp_service",
    "stream_server_address",
    "stream_server_port",
    "stream_idle_timeout",
    "enable_tls_streaming",
    "x509_key_pair_streaming",
];

/// v1MigratePluginName: a plugin name without a dot as version 2 names it.
pub(super) fn v1_plugin_name(name: &str) -> String {
    const CORE: [(&str, &str); 16] = [
        ("cri", "io.containerd.grpc.v1.cri"),
        ("cgroups", "io.containerd.monitor.v1.cgroups"),
        ("linux", "io.containerd.runtime.v1.linux"),
        ("scheduler", "io.containerd.gc.v1.scheduler"),
        ("bolt", "io.containerd.metadata.v1.bolt"),
        ("task", "io.containerd.runtime.v2.task"),
        ("opt", "io.containerd.internal.v1.opt"),
        ("restart", "io.containerd.internal.v1.restart"),
        ("tracing", "io.containerd.internal.v1.tracing"),
        ("otlp", "io.containerd.tracing.processor.v1.otlp"),
        ("aufs", "io.containerd.snapshotter.v1.aufs"),
        ("btrfs", "io.containerd.snapshotter.v1.btrfs"),
        ("devmapper", "io.containerd.snapshotter.v1.devmapper"),
        ("native", "io.containerd.snapshotter.v1.native"),
        ("overlayfs", "io.containerd.snapshotter.v1.overlayfs"),
        ("zfs", "io.containerd.snapshotter.v1.zfs"),
    ];
    if name.contains('.') {
        return name.to_string();
    }
    if let Some((_, full)) = CORE.iter().find(|(short, _)| *short == name) {
        full.to_string()
    } else if name.ends_with("-service") {
        format!("io.containerd.service.v1.{name}")
    } else if name == "windows" || name == "windows-lcow" {
        format!("io.containerd.snapshotter.v1.{name}")
    } else {
        format!("io.containerd.grpc.v1.{name}")
    }
}

/// v1Migrate: the plugin names of a version-1 file expanded. Two names
/// that end up the same collide in a Go map, where which one stays is
/// random; here the later in byte order stays.
pub(super) fn v1_rename(plugins: &mut Table, file: &str, warnings: Option<&mut Vec<Warning>>) {
    let mut renamed = Table::new();
    let mut collisions = Vec::new();
    for (name, node) in std::mem::take(plugins) {
        let full = v1_plugin_name(&name);
        if let Some(old) = renamed.insert(full.clone(), node) {
            collisions.push((full, old.at));
        }
    }
    if let (Some(warnings), Some((full, at))) = (warnings, collisions.first()) {
        warnings.push(warning_at(
            WarningCode::AmbiguousKey,
            at,
            format!(
                "{}: {file} has no version (or version 1), so containerd renames its plugin tables, and two of \
                 them become {full:?}: which one containerd keeps is random; keep one (this tool keeps the \
                 one last in byte order)",
                at.show()
            ),
        ));
    }
    *plugins = renamed;
}

pub(super) fn table_or<'n>(node: &'n Node, path: &str, version: i64) -> Result<&'n Table, Stop> {
    match &node.value {
        Value::Table(t) => Ok(t),
        other => Err(Stop::Crashes(format!(
            "{}: {path} is {}, not a table, in a file containerd migrates ({}): write it as a table",
            node.at.show_col(),
            other.what(),
            if version == 0 { "no version".to_string() } else { format!("version {version}") }
        ))),
    }
}

/// One step of the plugins' migrations (ConfigMigration with
/// `step`, below `target`): the CRI image plugin's, which copies
/// `sandbox_image` into pinned_images.sandbox, then the CRI plugin's, which
/// keeps only its streaming settings.
pub(super) fn migrate_cri(
    plugins: &mut Table,
    step: i64,
    target: i64,
    version: i64,
    warnings: Option<&mut Vec<Warning>>,
) -> Result<(), Stop> {
    if step >= target {
        return Ok(());
    }
    let Some(src_node) = plugins.get(CRI_PLUGIN) else { return Ok(()) };
    let src_header = format!("plugins.\"{CRI_PLUGIN}\"");
    let src = table_or(src_node, &src_header, version)?;
    let (mut dst, dst_at) = match plugins.get(IMAGES_PLUGIN) {
        None => (Table::new(), src_node.at.clone()),
        Some(node) => (table_or(node, &format!("plugins.\"{IMAGES_PLUGIN}\""), version)?.clone(), node.at.clone()),
    };
    let (mut pinned, pinned_at) = match dst.get("pinned_images") {
        None => (Table::new(), None),
        Some(node) => (table_or(node, "pinned_images", version)?.clone(), Some(node.at.clone())),
    };
    if let Some(image) = src.get("sandbox_image") {
        if let (Some(warnings), Some(old)) = (warnings, pinned.get("sandbox")) {
            if !same(&old.value, &image.value) {
                warnings.push(warning_at(
                    WarningCode::OverriddenKey,
                    &image.at,
                    format!(
                        "{}: sandbox_image replaces pinned_images.sandbox of {} (a file of version {version} \
                         is migrated: its sandbox_image is copied over its own pinned_images.sandbox); keep \
                         one of the two",
                        image.at.show(),
                        old.at.show()
                    ),
                ));
            }
        }
        pinned.insert("sandbox".to_string(), image.clone());
    }
    if !pinned.is_empty() {
        let at = pinned_at.unwrap_or_else(|| pinned.values().next().map_or(dst_at.clone(), |n| n.at.clone()));
        dst.insert("pinned_images".to_string(), Node { value: Value::Table(pinned), at });
    }
    // The same migration asserts the types of the runtimes it reads.
    if let Some(node) = src.get("containerd") {
        let containerd = table_or(node, &format!("{src_header}.containerd"), version)?;
        if let Some(node) = containerd.get("runtimes") {
            for (name, runtime) in table_or(node, &format!("{src_header}.containerd.runtimes"), version)? {
                table_or(runtime, &format!("{src_header}.containerd.runtimes.{}", quote_key(name)), version)?;
            }
        }
    }
    let kept: Table =
        src.iter().filter(|(k, _)| STREAMING_KEYS.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect();
    let src_at = src_node.at.clone();
    plugins.insert(IMAGES_PLUGIN.to_string(), Node { value: Value::Table(dst), at: dst_at });
    plugins.insert(CRI_PLUGIN.to_string(), Node { value: Value::Table(kept), at: src_at });
    Ok(())
}

pub(super) fn same(a: &Value, b: &Value) -> bool {
    matches!((a, b), (Value::String(a), Value::String(b)) if a == b)
}

/// mergeConfig for `plugins` (mergo with override): tables merge key by key
/// at every depth, anything else replaces. (go-toml decodes two keys into the
/// same map so too.)
pub(super) fn merge(dst: &mut Table, src: Table) {
    for (key, node) in src {
        match (dst.get_mut(&key), node.value) {
            (Some(Node { value: Value::Table(d), .. }), Value::Table(s)) => merge(d, s),
            (_, value) => {
                dst.insert(key, Node { value, at: node.at });
            }
        }
    }
}
