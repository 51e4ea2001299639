//! How a world's catalog is made from a document: the real catalog's
//! entries with the document's over them, each filled in from the real
//! one of its code or slug, and the checks of what a document names (the
//! spec's known values, bounded lists, a record's plan and facility).

use super::record::{Catalog, Facility, Metro, OperatingSystem, Plan, PlanSpecs};

impl Catalog {
    /// Checks that a record's plan and facility are the world's.
    pub(crate) fn check_placement(
        &self,
        from: &dyn Fn() -> String,
        plan: &str,
        facility: &str,
    ) -> Result<(), crate::document::WorldError> {
        use crate::model::load::unknown;
        if self.plan(plan).is_none() {
            return Err(unknown(from(), "plan", plan));
        }
        if self.facility(facility).is_none() {
            return Err(unknown(from(), "facility", facility));
        }
        Ok(())
    }
}

/// The features a facility may have (the spec's known values).
pub(super) const FEATURES: &[&str] = &[
    "baremetal",
    "backend_transfer",
    "layer_2",
    "global_ipv4",
    "ibx",
];

/// The features of a facility whose entry names none.
pub(super) const DEFAULT_FEATURES: &[&str] =
    &["baremetal", "backend_transfer", "layer_2", "global_ipv4"];

/// The ways a plan may be deployed (the spec's known values).
pub(super) const DEPLOYMENT_TYPES: &[&str] = &["on_demand", "spot_market"];

/// A plan's categories (the spec's known values of `findPlans`'
/// `categories[]`).
pub(super) const CATEGORIES: &[&str] = &["compute", "storage", "vmce", "legacy_gen", "current_gen"];

/// The categories of a plan whose entry names none.
pub(super) const DEFAULT_CATEGORIES: &[&str] = &["compute", "current_gen"];

/// A plan's types (the spec's known values); the first is the default.
pub(super) const PLAN_TYPES: &[&str] = &["standard", "workload_optimized", "custom"];

/// The most entries of one list of a plan's specs.
pub(super) const MAX_SPEC_ENTRIES: usize = 16;

/// Refuses a list that names something twice or names what is not one of
/// `allowed`: each is then at most `allowed` long.
pub(super) fn one_each(
    given: &[String],
    allowed: &[&str],
    from: &str,
    kind: &'static str,
) -> Result<(), crate::document::WorldError> {
    use crate::model::load::{unique, unknown};
    let mut seen = std::collections::HashSet::new();
    for g in given {
        if !allowed.contains(&g.as_str()) {
            return Err(unknown(from.to_string(), kind, g));
        }
        unique(&mut seen, g.as_str(), kind, g)?;
    }
    Ok(())
}

/// Refuses specs with more than [`MAX_SPEC_ENTRIES`] entries in a list.
pub(super) fn check_specs(
    specs: &PlanSpecs,
    from: &str,
) -> Result<(), crate::document::WorldError> {
    let longest = specs
        .cpus
        .len()
        .max(specs.nics.len())
        .max(specs.drives.len());
    if longest > MAX_SPEC_ENTRIES {
        return Err(crate::document::WorldError::Inconsistent(format!(
            "{from}: a list of its specs has {longest} entries, more than {MAX_SPEC_ENTRIES}"
        )));
    }
    Ok(())
}

/// An entry of the catalog, by its code or slug, that a document's entry
/// of the same key fills in from.
pub(super) trait Entry: Clone {
    fn key(&self) -> &str;
    /// Takes `from`'s fields where `self` has none (`whole`: every field;
    /// else all but where the thing is, which is the world's own).
    fn fill(&mut self, from: &Self, whole: bool);
}

/// `doc`'s entries over `base`'s (`inherit`: `base`'s first, each
/// replaced by the document's entry of its key, filled from it, then the
/// document's others; else the document's alone, each filled from
/// `base`'s entry of its key). A key twice in `doc` stays twice, for the
/// load to refuse.
pub(super) fn merged<T: Entry>(base: &[T], doc: &[T], inherit: bool) -> Vec<T> {
    let find = |key: &str| base.iter().position(|b| b.key() == key);
    if !inherit {
        return doc
            .iter()
            .map(|d| {
                let mut e = d.clone();
                if let Some(i) = find(d.key()) {
                    e.fill(&base[i], false);
                }
                e
            })
            .collect();
    }
    let mut out = base.to_vec();
    let mut taken = vec![false; base.len()];
    for d in doc {
        let mut e = d.clone();
        match find(d.key()) {
            Some(i) if !taken[i] => {
                e.fill(&base[i], true);
                out[i] = e;
                taken[i] = true;
            }
            _ => out.push(e),
        }
    }
    out
}

/// `theirs` where `mine` is absent.
fn or<T: Clone>(mine: &mut Option<T>, theirs: &Option<T>) {
    if mine.is_none() {
        mine.clone_from(theirs);
    }
}

impl Entry for Metro {
    fn key(&self) -> &str {
        &self.code
    }
    fn fill(&mut self, from: &Self, _: bool) {
        self.id = self.id.or(from.id);
        or(&mut self.name, &from.name);
        or(&mut self.country, &from.country);
    }
}

impl Entry for Facility {
    fn key(&self) -> &str {
        &self.code
    }
    fn fill(&mut self, from: &Self, _: bool) {
        self.id = self.id.or(from.id);
        or(&mut self.name, &from.name);
        or(&mut self.features, &from.features);
    }
}

impl Entry for Plan {
    fn key(&self) -> &str {
        &self.slug
    }
    fn fill(&mut self, from: &Self, whole: bool) {
        self.id = self.id.or(from.id);
        or(&mut self.name, &from.name);
        or(&mut self.class, &from.class);
        or(&mut self.description, &from.description);
        or(&mut self.line, &from.line);
        or(&mut self.plan_type, &from.plan_type);
        or(&mut self.categories, &from.categories);
        or(&mut self.legacy, &from.legacy);
        or(&mut self.specs, &from.specs);
        or(&mut self.pricing, &from.pricing);
        or(&mut self.deployment_types, &from.deployment_types);
        if whole {
            or(&mut self.metros, &from.metros);
        }
    }
}

impl Entry for OperatingSystem {
    fn key(&self) -> &str {
        &self.slug
    }
    fn fill(&mut self, from: &Self, _: bool) {
        self.id = self.id.or(from.id);
        or(&mut self.distro, &from.distro);
        or(&mut self.version, &from.version);
        or(&mut self.name, &from.name);
        or(&mut self.provisionable_on, &from.provisionable_on);
        or(&mut self.licensed, &from.licensed);
        or(&mut self.pricing, &from.pricing);
    }
}
