//! `$ref` walking, shared by the subset (which components to keep) and the
//! patches (which schemas a response can contain).

use std::collections::BTreeSet;

use anyhow::Result;
use serde_json::Value;

/// Pushes every `$ref` found anywhere below `v`.
pub fn collect_refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, x) in map {
                if k == "$ref" {
                    if let Some(s) = x.as_str() {
                        out.push(s.to_string());
                    }
                } else {
                    collect_refs(x, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|x| collect_refs(x, out)),
        _ => {}
    }
}

/// Every reference reachable from the `$ref`s below `start`: each one is
/// resolved with `resolve`, and the references of what it resolves to are
/// followed in turn. `resolve` returns `Ok(None)` for a reference not to
/// follow (it is still listed), or an error to stop.
pub fn reachable<'a>(
    start: &Value,
    mut resolve: impl FnMut(&str) -> Result<Option<&'a Value>>,
) -> Result<BTreeSet<String>> {
    let mut queue = Vec::new();
    collect_refs(start, &mut queue);
    let mut seen = BTreeSet::new();
    while let Some(r) = queue.pop() {
        if !seen.insert(r.clone()) {
            continue;
        }
        if let Some(target) = resolve(&r)? {
            collect_refs(target, &mut queue);
        }
    }
    Ok(seen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn follows_references_transitively_once() {
        let doc = json!({
            "a": {"$ref": "#/b"},
            "b": {"x": {"$ref": "#/c"}, "y": {"$ref": "#/a"}},
            "c": {"items": [{"$ref": "#/b"}]}
        });
        let start = json!({"$ref": "#/a"});
        let seen = reachable(&start, |r| Ok(doc.pointer(r.trim_start_matches('#')))).unwrap();
        assert_eq!(
            seen.into_iter().collect::<Vec<_>>(),
            vec!["#/a", "#/b", "#/c"]
        );
    }
}
