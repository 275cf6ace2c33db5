//! The `req` value built once per request from the [`Request`].

use base64::Engine as _;
use fnhcl_value::{ObjMap, Value};
use std::collections::{BTreeMap, HashMap};

use super::values::{clean, key, obj};
use crate::api::{Request, WATCHED_RESOURCE};

/// Connection details as an object of base64 strings; null when empty.
fn connection_value(details: &BTreeMap<String, Vec<u8>>) -> Value {
    if details.is_empty() {
        return Value::null();
    }
    Value::object(
        details
            .iter()
            .map(|(k, v)| {
                (
                    key(k),
                    Value::string(base64::engine::general_purpose::STANDARD.encode(v)),
                )
            })
            .collect(),
    )
}

pub(super) fn build_req(r: &Request, members: &HashMap<String, Vec<(String, String)>>) -> Value {
    let context = Value::object(r.context.iter().map(|(k, v)| (key(k), v.clone())).collect());
    let composite = r
        .composite
        .as_ref()
        .map(clean)
        .unwrap_or_else(Value::empty_object);
    // `r.observed` is sorted by name (and unique), so these are in key order.
    let mut resource = Vec::with_capacity(r.observed.len());
    let mut connection = Vec::with_capacity(r.observed.len());
    for (name, o) in &r.observed {
        let k = key(name);
        resource.push((k.clone(), clean(&o.body)));
        connection.push((k, connection_value(&o.connection_details)));
    }
    let (resource, connection) = (
        ObjMap::from_sorted(resource),
        ObjMap::from_sorted(connection),
    );
    // `members` is a HashMap: collected, then sorted once.
    let mut resources = Vec::with_capacity(members.len());
    let mut connections = Vec::with_capacity(members.len());
    for (base, list) in members {
        let mut bodies = Vec::new();
        let mut conns = Vec::new();
        for (_, name) in list {
            if let (Some(b), Some(c)) = (resource.get(name.as_str()), connection.get(name.as_str()))
            {
                bodies.push(b.clone());
                conns.push(c.clone());
            }
        }
        resources.push((key(base), Value::tuple(bodies)));
        connections.push((key(base), Value::tuple(conns)));
    }
    // In name order.
    let mut extra = Vec::new();
    for (name, items) in &r.extra_resources {
        if let Some(items) = items {
            extra.push((key(name), Value::tuple(items.iter().map(clean).collect())));
        }
    }
    // D39: a WatchOperation's watched object, unknown when there is none.
    let watched = r
        .extra_resources
        .get(WATCHED_RESOURCE)
        .and_then(|items| items.as_ref()?.first())
        .map(clean)
        .unwrap_or_else(Value::dynamic_unknown);
    let extra = ObjMap::from_sorted(extra);
    // D38: every credential value carries the sensitive mark.
    let credentials = Value::object(
        r.credentials
            .iter()
            .map(|(name, data)| {
                let entries = data
                    .iter()
                    .map(|(k, v)| {
                        let text = base64::engine::general_purpose::STANDARD.encode(v);
                        (key(k), Value::string(text).mark())
                    })
                    .collect();
                (key(name), Value::object(entries))
            })
            .collect(),
    );
    obj([
        ("context", context),
        ("composite", composite),
        (
            "composite_connection",
            connection_value(&r.composite_connection),
        ),
        ("resource", Value::object(resource)),
        ("connection", Value::object(connection)),
        ("resources", Value::object(resources.into_iter().collect())),
        (
            "connections",
            Value::object(connections.into_iter().collect()),
        ),
        ("extra_resources", Value::object(extra)),
        ("credentials", credentials),
        ("watched", watched),
    ])
}
