//! One sample call of every operation (`metal_api::samples`): the
//! generated method with every required argument set to a placeholder
//! that decodes as its type, for tests that walk every operation (through
//! the policy, against the fake).
//!
//! The placeholder of a parameter or body is a JSON value made from its
//! schema: an object's required properties, the first of a `oneOf`, an
//! enumeration's first value, a string of the format's shape. The Rust type
//! it decodes to is read from the generated builder's method (`fn
//! direction<V>(..) where V: TryInto<types::FindTrafficDirection>`), so the
//! sample and the client cannot disagree.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use anyhow::{anyhow, bail, Context, Result};
use heck::{ToSnakeCase, ToUpperCamelCase};
use quote::ToTokens;
use serde_json::{json, Map, Value};

/// The placeholder of a path parameter in the `uuid` format.
const SAMPLE_UUID: &str = "00000000-0000-4000-8000-000000000001";

/// How deep a sample follows nested required objects (the spec has none
/// deeper than a few levels; a cycle would stop here).
const MAX_DEPTH: usize = 12;

/// The builder methods of the generated client: (builder, method) to the
/// type its `TryInto` bound names.
fn builder_methods(client: &syn::File) -> BTreeMap<(String, String), String> {
    let mut out = BTreeMap::new();
    let builder = client.items.iter().find_map(|item| match item {
        syn::Item::Mod(m) if m.ident == "builder" => m.content.as_ref(),
        _ => None,
    });
    for item in builder
        .map(|(_, items)| items.as_slice())
        .unwrap_or_default()
    {
        let syn::Item::Impl(imp) = item else { continue };
        let syn::Type::Path(self_ty) = &*imp.self_ty else {
            continue;
        };
        let Some(name) = self_ty.path.segments.last().map(|s| s.ident.to_string()) else {
            continue;
        };
        for item in &imp.items {
            let syn::ImplItem::Fn(f) = item else { continue };
            let bound = f
                .sig
                .generics
                .where_clause
                .iter()
                .flat_map(|w| &w.predicates)
                .find_map(|p| {
                    let syn::WherePredicate::Type(t) = p else {
                        return None;
                    };
                    t.bounds.iter().find_map(|b| {
                        let syn::TypeParamBound::Trait(tr) = b else {
                            return None;
                        };
                        let last = tr.path.segments.last()?;
                        if last.ident != "TryInto" {
                            return None;
                        }
                        let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                            return None;
                        };
                        args.args.first().map(|a| a.to_token_stream().to_string())
                    })
                });
            if let Some(ty) = bound {
                out.insert((name.clone(), f.sig.ident.to_string()), ty);
            }
        }
    }
    out
}

/// Resolves a local `$ref` (to a schema, parameter or request body).
fn resolve<'a>(spec: &'a Value, v: &'a Value) -> Result<&'a Value> {
    match v.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let pointer = r
                .strip_prefix('#')
                .ok_or_else(|| anyhow!("unsupported reference {r}"))?;
            spec.pointer(pointer)
                .ok_or_else(|| anyhow!("dangling reference {r}"))
        }
        None => Ok(v),
    }
}

/// A JSON value that `schema` accepts: only what it requires.
pub fn sample(spec: &Value, schema: &Value, depth: usize) -> Result<Value> {
    if depth > MAX_DEPTH {
        bail!("a sample nests deeper than {MAX_DEPTH} levels");
    }
    let schema = resolve(spec, schema)?;
    for key in ["oneOf", "anyOf"] {
        if let Some(first) = schema
            .get(key)
            .and_then(Value::as_array)
            .and_then(|v| v.first())
        {
            return sample(spec, first, depth + 1);
        }
    }
    if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
        let mut merged = Map::new();
        for part in parts {
            match sample(spec, part, depth + 1)? {
                Value::Object(m) => merged.extend(m),
                other if parts.len() == 1 => return Ok(other),
                other => bail!("allOf of a non-object: {other}"),
            }
        }
        return Ok(Value::Object(merged));
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|v| v.first())
    {
        return Ok(first.clone());
    }
    let kind = schema.get("type").and_then(Value::as_str);
    let is_object =
        kind == Some("object") || (kind.is_none() && schema.get("properties").is_some());
    if is_object {
        let mut out = Map::new();
        let props = schema.get("properties").and_then(Value::as_object);
        for name in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            let prop = props
                .and_then(|p| p.get(name))
                .ok_or_else(|| anyhow!("required property {name} is not described"))?;
            out.insert(name.to_string(), sample(spec, prop, depth + 1)?);
        }
        return Ok(Value::Object(out));
    }
    let number = |default: i64| {
        schema
            .get("minimum")
            .and_then(Value::as_i64)
            .map_or(default, |min| min.max(default))
    };
    Ok(match kind {
        Some("array") => {
            let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let items = schema.get("items").unwrap_or(&Value::Null);
            let mut out = Vec::new();
            for _ in 0..min {
                out.push(sample(spec, items, depth + 1)?);
            }
            Value::Array(out)
        }
        Some("integer") => json!(number(1)),
        Some("number") => json!(number(1)),
        Some("boolean") => json!(true),
        Some("string") | None => {
            let text = match schema.get("format").and_then(Value::as_str) {
                Some("uuid") => SAMPLE_UUID.to_string(),
                Some("date-time") => "2024-01-01T00:00:00Z".to_string(),
                Some("date") => "2024-01-01".to_string(),
                Some("ipv4") => "192.0.2.1".to_string(),
                Some("ipv6") => "2001:db8::1".to_string(),
                Some("email") => "someone@example.com".to_string(),
                _ => {
                    let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(1);
                    "x".repeat(usize::try_from(min.max(1)).unwrap_or(1))
                }
            };
            if schema.get("pattern").is_some() {
                bail!("no sample for a required string with a pattern: {schema}");
            }
            json!(text)
        }
        Some(other) => bail!("no sample for type {other}"),
    })
}

/// The operations of the spec, sorted by operationId: (id, operation).
fn operations(spec: &Value) -> Vec<(&str, &Value)> {
    let mut out: Vec<(&str, &Value)> = spec
        .get("paths")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|paths| paths.values())
        .filter_map(Value::as_object)
        .flat_map(|item| item.iter())
        .filter(|(k, _)| k.as_str() != "parameters")
        .filter_map(|(_, op)| Some((op.get("operationId")?.as_str()?, op)))
        .collect();
    out.sort_by_key(|(id, _)| *id);
    out
}

/// The text of `samples.rs`: `pub fn call` with one arm per operation.
pub fn generate(spec: &Value, client: &syn::File) -> Result<String> {
    let methods = builder_methods(client);
    let mut arms = String::new();
    for (id, op) in operations(spec) {
        let builder = id.to_upper_camel_case();
        let mut args = Vec::new();
        for param in op
            .get("parameters")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let param = resolve(spec, param)?;
            let name = param
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let required = param.get("required") == Some(&Value::Bool(true));
            if !required {
                continue;
            }
            let schema = param.get("schema").unwrap_or(&Value::Null);
            args.push((
                name.to_snake_case(),
                sample(spec, schema, 0).with_context(|| format!("{id}'s parameter {name}"))?,
            ));
        }
        if let Some(body) = op.get("requestBody") {
            let body = resolve(spec, body)?;
            let schema = body.pointer("/content/application~1json/schema");
            if let (Some(schema), true) = (schema, body.get("required") == Some(&Value::Bool(true)))
            {
                args.push((
                    "body".to_string(),
                    sample(spec, schema, 0).with_context(|| format!("{id}'s body"))?,
                ));
            }
        }
        let mut call = format!("client.{}()", id.to_snake_case());
        for (method, value) in &args {
            let ty = methods
                .get(&(builder.clone(), method.clone()))
                .ok_or_else(|| anyhow!("the generated builder {builder} has no method {method}"))?;
            let json = serde_json::to_string(value)?;
            write!(
                call,
                "\n                .{method}(sample::<{ty}>({method:?}, {json:?})?)"
            )?;
        }
        writeln!(
            arms,
            "        {id:?} => Box::pin(async move {{\n            settle({call}\n                .send()\n                .await)\n        }}),"
        )?;
    }
    Ok(format!(
        "/// Sends `operation` with placeholder arguments: every required\n\
         /// parameter and body set to a value its schema accepts, nothing else.\n\
         pub fn call<'a>(client: &'a crate::Client, operation: &crate::Operation) -> BoxFuture<'a, Reply> {{\n    \
         match operation.id {{\n{arms}        \
         other => {{\n            let other = other.to_string();\n            \
         Box::pin(async move {{ Err(crate::Error::InvalidRequest(format!(\"no sample call of {{other}}\"))) }})\n        }}\n    \
         }}\n}}\n"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_hold_what_the_schema_requires_and_nothing_else() {
        let spec = json!({"components": {"schemas": {
            "Input": {"type": "object", "required": ["plan", "metro", "count", "where"], "properties": {
                "plan": {"type": "string", "minLength": 3},
                "metro": {"type": "string", "enum": ["da", "sv"]},
                "count": {"type": "integer", "minimum": 2},
                "where": {"$ref": "#/components/schemas/Where"},
                "tags": {"type": "array", "items": {"type": "string"}}
            }},
            "Where": {"oneOf": [
                {"type": "object", "required": ["id"], "properties": {"id": {"type": "string", "format": "uuid"}}},
                {"type": "object", "required": ["code"], "properties": {"code": {"type": "string"}}}
            ]},
            "Both": {"allOf": [{"$ref": "#/components/schemas/Where"},
                               {"type": "object", "required": ["at"], "properties": {"at": {"type": "string", "format": "date-time"}}}]}
        }}});
        let input = json!({"$ref": "#/components/schemas/Input"});
        assert_eq!(
            sample(&spec, &input, 0).unwrap(),
            json!({"plan": "xxx", "metro": "da", "count": 2, "where": {"id": SAMPLE_UUID}})
        );
        assert_eq!(
            sample(&spec, &json!({"$ref": "#/components/schemas/Both"}), 0).unwrap(),
            json!({"id": SAMPLE_UUID, "at": "2024-01-01T00:00:00Z"})
        );
        assert_eq!(
            sample(&spec, &json!({"type": "boolean"}), 0).unwrap(),
            json!(true)
        );
        assert!(sample(&spec, &json!({"type": "string", "pattern": "^a$"}), 0).is_err());
        let cycle = json!({"components": {"schemas": {"A": {"type": "object", "required": ["a"],
            "properties": {"a": {"$ref": "#/components/schemas/A"}}}}}});
        assert!(sample(&cycle, &json!({"$ref": "#/components/schemas/A"}), 0).is_err());
    }

    #[test]
    fn a_call_sets_each_required_argument_with_the_builder_s_type() {
        let spec = json!({"paths": {"/d/{id}/traffic": {"get": {
            "operationId": "findTraffic",
            "parameters": [
                {"in": "path", "name": "id", "required": true, "schema": {"type": "string", "format": "uuid"}},
                {"in": "query", "name": "direction", "required": true,
                 "schema": {"type": "string", "enum": ["inbound", "outbound"]}},
                {"in": "query", "name": "bucket", "schema": {"type": "string"}}
            ]
        }}}});
        let client: syn::File = syn::parse_str(
            "pub mod builder {
                impl<'a> FindTraffic<'a> {
                    pub fn id<V>(mut self, value: V) -> Self where V: std::convert::TryInto<::uuid::Uuid> { self }
                    pub fn direction<V>(mut self, value: V) -> Self where V: std::convert::TryInto<types::FindTrafficDirection> { self }
                    pub fn bucket<V>(mut self, value: V) -> Self where V: std::convert::TryInto<types::B> { self }
                }
            }",
        )
        .unwrap();
        let text = generate(&spec, &client).unwrap();
        assert!(
            text.contains(r#""findTraffic" => Box::pin(async move {"#),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                r#".id(sample::<:: uuid :: Uuid>("id", "\"{SAMPLE_UUID}\"")?)"#
            )),
            "{text}"
        );
        assert!(text.contains(
            r#".direction(sample::<types :: FindTrafficDirection>("direction", "\"inbound\"")?)"#
        ), "{text}");
        assert!(
            !text.contains("bucket"),
            "optional parameters stay unset: {text}"
        );

        let missing: syn::File = syn::parse_str("pub mod builder {}").unwrap();
        let err = generate(&spec, &missing).unwrap_err().to_string();
        assert!(
            err.contains("builder FindTraffic has no method id"),
            "{err}"
        );
    }
}
