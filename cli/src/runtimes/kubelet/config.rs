//! The kubelet's configuration as the tool reads it: the
//! KubeletConfiguration file (`--config`, YAML or JSON) and its drop-in
//! directory (`--config-dir`: the `*.conf` files in lexical order, each a
//! KubeletConfiguration of its own whose fields replace the loaded ones, a
//! list whole; `featureGates` merge gate by gate, as decoding a drop-in
//! over the loaded configuration does), for the three settings of image
//! pull credential verification: `imagePullCredentialsVerificationPolicy`,
//! `preloadedImagesVerificationAllowlist` and the feature gate
//! `KubeletEnsureSecretPulledImages` (beta, on by default since 1.35).
//!
//! Read with saphyr-parser's events (YAML 1.2; JSON is YAML), keeping the
//! line of every value. Keys are compared case-sensitively, as the
//! kubelet's decoder compares them. What the kubelet refuses to start on
//! (`validation.go`: an unknown policy, an allowlist under another policy,
//! a refused entry, either setting with the gate off) is an error naming
//! each place, the kubelet's reason and what to write.

use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;

use saphyr_parser::{Event, Parser, ScalarStyle};

use super::{refusal, Policy, FEATURE_GATE};
use crate::error::InputError;
use crate::input;
use crate::list::{Entry, Resolved};
use crate::show;

/// Where the kubelet reads its configuration when told to (kubeadm,
/// k3s and most distributions give it `--config` with this path).
pub const DEFAULT_CONFIG: &str = "/var/lib/kubelet/config.yaml";

/// The verification settings of one kubelet, each with where it was set.
#[derive(Debug)]
pub struct KubeletConfig {
    /// The allowlist's entries, each at its FILE:LINE.
    pub allowlist: Resolved,
    pub policy: Policy,
    /// "FILE:LINE", or "default".
    pub policy_at: String,
    /// Whether `KubeletEnsureSecretPulledImages` is on.
    pub gate: bool,
    pub gate_at: String,
}

/// A YAML value with the line it starts on.
#[derive(Clone, Debug)]
enum Node {
    Scalar { text: String, plain: bool, line: usize },
    Seq { items: Vec<Node>, line: usize },
    Map { pairs: Vec<(String, Node)>, line: usize },
}

impl Node {
    fn line(&self) -> usize {
        match self {
            Node::Scalar { line, .. } | Node::Seq { line, .. } | Node::Map { line, .. } => *line,
        }
    }
}

/// The configuration `config` (default [`DEFAULT_CONFIG`]) and the drop-ins
/// of `dir` give.
pub fn read(config: Option<&str>, dir: Option<&str>) -> Result<KubeletConfig, InputError> {
    let main = config.unwrap_or(DEFAULT_CONFIG);
    let mut files = vec![main.to_owned()];
    if let Some(dir) = dir {
        files.extend(drop_ins(dir)?);
    }
    let mut allowlist: Option<Resolved> = None;
    let mut policy: Option<(String, String)> = None;
    let mut gate = (true, "default (on since Kubernetes 1.35)".to_owned());
    for file in &files {
        let root = parse(file)?;
        let Node::Map { pairs, .. } = &root else {
            return Err(InputError(format!("{file}:{}: not a KubeletConfiguration (a mapping)", root.line())));
        };
        check_kind(file, pairs)?;
        let shared: Rc<str> = file.as_str().into();
        for (key, value) in pairs {
            match key.as_str() {
                "imagePullCredentialsVerificationPolicy" => {
                    policy = Some((string(file, key, value)?, format!("{file}:{}", value.line())))
                }
                "preloadedImagesVerificationAllowlist" => {
                    allowlist = Some(entries(file, &shared, value)?);
                }
                "featureGates" => {
                    if let Some(on) = feature_gate(file, value)? {
                        gate = on;
                    }
                }
                _ => {}
            }
        }
    }
    let mut allowlist = allowlist.unwrap_or_default();
    allowlist.files = files;
    validate(allowlist, policy, gate)
}

/// The drop-ins of `dir`: its `*.conf` files, in lexical order.
fn drop_ins(dir: &str) -> Result<Vec<String>, InputError> {
    let read = std::fs::read_dir(dir).map_err(|e| {
        InputError(format!("--config-dir {dir}: {e}: give the directory the kubelet's --config-dir names"))
    })?;
    let mut names: Vec<String> = read
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".conf"))
        .collect();
    names.sort();
    Ok(names.into_iter().map(|n| Path::new(dir).join(n).to_string_lossy().into_owned()).collect())
}

/// A file's one document.
fn parse(file: &str) -> Result<Node, InputError> {
    let bytes = input::read_file(Path::new(file)).map_err(|e| {
        let hint =
            if file == DEFAULT_CONFIG { " (give the file the kubelet's --config names with --config)" } else { "" };
        InputError(format!("{}{hint}", e.message(file)))
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        InputError(format!("{file}: not UTF-8 at byte {}: the kubelet refuses it", e.utf8_error().valid_up_to()))
    })?;
    let mut parser = Parser::new_from_str(&text);
    let mut anchors: HashMap<usize, Node> = HashMap::new();
    let mut stack: Vec<(Node, Option<String>, usize)> = Vec::new();
    let mut root: Option<Node> = None;
    let yaml_error = |line: usize, what: &str| InputError(format!("{file}:{line}: {what}"));
    while let Some(event) = parser.next_event() {
        let (event, span) = event.map_err(|e| yaml_error(e.marker().line(), e.info()))?;
        let line = span.start.line();
        let (node, anchor) = match event {
            Event::MappingStart(anchor, _) => {
                stack.push((Node::Map { pairs: Vec::new(), line }, None, anchor));
                continue;
            }
            Event::SequenceStart(anchor, _) => {
                stack.push((Node::Seq { items: Vec::new(), line }, None, anchor));
                continue;
            }
            Event::MappingEnd | Event::SequenceEnd => {
                let (node, _, anchor) = stack.pop().expect("the parser balances its events");
                (node, anchor)
            }
            Event::Scalar(text, style, anchor, _) => {
                (Node::Scalar { text: text.into_owned(), plain: style == ScalarStyle::Plain, line }, anchor)
            }
            Event::Alias(id) => {
                let node = anchors.get(&id).cloned().ok_or_else(|| yaml_error(line, "an alias of no anchor"))?;
                (node, 0)
            }
            Event::DocumentStart(_) if root.is_some() => {
                return Err(yaml_error(line, "a second YAML document: the kubelet reads one"))
            }
            _ => continue,
        };
        if anchor != 0 {
            anchors.insert(anchor, node.clone());
        }
        match stack.last_mut() {
            None => root = Some(node),
            Some((Node::Seq { items, .. }, _, _)) => items.push(node),
            Some((Node::Map { pairs, .. }, key, _)) => match (key.take(), node) {
                (Some(k), value) => pairs.push((k, value)),
                (None, Node::Scalar { text, .. }) => *key = Some(text),
                (None, other) => return Err(yaml_error(other.line(), "a key that is not a string")),
            },
            Some((Node::Scalar { .. }, _, _)) => unreachable!("a scalar holds nothing"),
        }
    }
    root.ok_or_else(|| InputError(format!("{file}: empty: the kubelet needs a KubeletConfiguration")))
}

/// The kubelet decodes a file only as `kind: KubeletConfiguration` of its
/// API group.
fn check_kind(file: &str, pairs: &[(String, Node)]) -> Result<(), InputError> {
    let get = |k: &str| pairs.iter().find(|(key, _)| key == k).map(|(_, v)| v);
    fn text(n: Option<&Node>) -> Option<&str> {
        match n {
            Some(Node::Scalar { text, .. }) => Some(text.as_str()),
            _ => None,
        }
    }
    let kind_ok = text(get("kind")) == Some("KubeletConfiguration");
    let version_ok = text(get("apiVersion")).is_some_and(|v| v.starts_with("kubelet.config.k8s.io/"));
    if kind_ok && version_ok {
        return Ok(());
    }
    Err(InputError(format!(
        "{file}: not a KubeletConfiguration: the kubelet decodes only a file with kind: KubeletConfiguration and \
         apiVersion: kubelet.config.k8s.io/v1beta1; give the file its --config (or --config-dir) names"
    )))
}

/// A string setting. A plain scalar the kubelet's YAML (1.1) reads as
/// something else (null, a boolean, a number) is no string to it.
fn string(file: &str, key: &str, node: &Node) -> Result<String, InputError> {
    match node {
        Node::Scalar { text, plain, .. } if !*plain || not_a_string(text).is_none() => Ok(text.clone()),
        Node::Scalar { text, line, .. } => Err(InputError(format!(
            "{file}:{line}: {key}: {} is {}, not a string, to the kubelet's YAML decoder: quote it",
            show::quote(text),
            not_a_string(text).unwrap_or_default()
        ))),
        other => Err(InputError(format!("{file}:{}: {key} must be a string", other.line()))),
    }
}

/// What YAML 1.1 (go-yaml v2, under sigs.k8s.io/yaml) reads a plain scalar
/// as, when not a string.
fn not_a_string(text: &str) -> Option<&'static str> {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => Some("null"),
        _ if yaml11_bool(text).is_some() => Some("a boolean"),
        _ if text.parse::<f64>().is_ok() || text.parse::<i64>().is_ok() => Some("a number"),
        _ => None,
    }
}

fn yaml11_bool(text: &str) -> Option<bool> {
    match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => Some(true),
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// The allowlist: a sequence of strings, each an entry at its line.
fn entries(file: &str, shared: &Rc<str>, node: &Node) -> Result<Resolved, InputError> {
    const KEY: &str = "preloadedImagesVerificationAllowlist";
    let items = match node {
        Node::Seq { items, .. } => items.as_slice(),
        Node::Scalar { text, plain: true, .. } if not_a_string(text) == Some("null") => &[],
        other => return Err(InputError(format!("{file}:{}: {KEY} must be a list of strings", other.line()))),
    };
    let mut resolved = Resolved::default();
    for item in items {
        let text = string(file, KEY, item)?;
        resolved.entries.push(Entry::in_file(text.into_bytes(), shared, item.line()));
    }
    Ok(resolved)
}

/// `featureGates.KubeletEnsureSecretPulledImages`, when this file sets it.
fn feature_gate(file: &str, node: &Node) -> Result<Option<(bool, String)>, InputError> {
    let Node::Map { pairs, .. } = node else {
        return Err(InputError(format!(
            "{file}:{}: featureGates must be a mapping of gate names to booleans",
            node.line()
        )));
    };
    let Some((_, value)) = pairs.iter().find(|(k, _)| k == FEATURE_GATE) else { return Ok(None) };
    match value {
        Node::Scalar { text, plain: true, line } => match yaml11_bool(text) {
            Some(on) => Ok(Some((on, format!("{file}:{line}")))),
            None => Err(InputError(format!("{file}:{line}: featureGates.{FEATURE_GATE}: write true or false"))),
        },
        other => Err(InputError(format!("{file}:{}: featureGates.{FEATURE_GATE}: write true or false", other.line()))),
    }
}

/// The settings, or every reason the kubelet refuses to start on them.
fn validate(
    allowlist: Resolved,
    policy: Option<(String, String)>,
    (gate, gate_at): (bool, String),
) -> Result<KubeletConfig, InputError> {
    let mut refusals: Vec<String> = Vec::new();
    if !gate {
        let set = |what: &str, at: &str| {
            format!(
                "{at}: {what} must not be set if the {FEATURE_GATE} feature gate is not enabled ({gate_at} turns it \
                 off): remove one of them"
            )
        };
        if let Some((_, at)) = &policy {
            refusals.push(set("imagePullCredentialsVerificationPolicy", at));
        }
        if let Some(first) = allowlist.entries.first() {
            refusals.push(set("preloadedImagesVerificationAllowlist", &first.source));
        }
    }
    let (value, policy_at) = policy.unwrap_or_else(|| (String::new(), "default".into()));
    // With the gate off the policy means nothing (and is refused above).
    let policy = if value.is_empty() || !gate {
        Policy::NeverVerifyPreloadedImages
    } else {
        match Policy::ALL.iter().find(|p| p.as_str() == value) {
            Some(&p) => p,
            None => {
                let names: Vec<&str> = Policy::ALL.iter().map(|p| p.as_str()).collect();
                refusals.push(format!(
                    "{policy_at}: imagePullCredentialsVerificationPolicy {} is none of the kubelet's: write one of {} \
                     (case counts)",
                    show::quote(&value),
                    names.join(", ")
                ));
                Policy::AlwaysVerify
            }
        }
    };
    if gate && !allowlist.entries.is_empty() && policy != Policy::NeverVerifyAllowlistedImages {
        refusals.push(format!(
            "{}: can't set preloadedImagesVerificationAllowlist if imagePullCredentialsVerificationPolicy is not \
             \"NeverVerifyAllowlistedImages\" (it is {} at {policy_at}): set that policy, or remove the list",
            allowlist.entries[0].source,
            policy.as_str()
        ));
    }
    for entry in &allowlist.entries {
        if let Some(why) = refusal(&entry.display()) {
            refusals.push(format!("{}: {}", entry.source, why));
        }
    }
    if !refusals.is_empty() {
        return Err(InputError(format!(
            "the kubelet refuses this configuration and does not start ({} reason(s)): {}",
            refusals.len(),
            refusals.join("; ")
        )));
    }
    Ok(KubeletConfig { allowlist, policy, policy_at, gate, gate_at })
}
