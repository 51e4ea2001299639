//! The API's rules for virtual networks: where one is made (a metro, or a
//! facility and its metro), its `vxlan` (given, in range and free in the
//! metro; or the next free one), what an update changes, and when it may
//! go (not while a port is on it).

use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Kept, VirtualNetwork};
use crate::call::ApiError;
use crate::model::bounds::{bad_tags, refuse, too_long, MAX_TEXT};
use crate::model::relations::Kind;
use crate::model::World;

/// The lowest and highest `vxlan` a VLAN may have.
pub(crate) const VXLAN_RANGE: std::ops::RangeInclusive<u32> = 2..=3999;

/// Where the API starts numbering VLANs made without a `vxlan` (examples
/// of auto-assigned VLANs read 1000 and above).
const FIRST_AUTO_VXLAN: u32 = 1000;

/// The most VLANs one project holds (a bound of the fake's).
pub(crate) const MAX_VLANS_PER_PROJECT: usize = 1000;

/// Checks a VLAN of a world document: placed in the catalog, its `vxlan`
/// in range and not taken in its metro, its fields within bounds.
pub(crate) fn check_record(w: &World, v: &VirtualNetwork) -> Result<(), String> {
    let (metro, facility) = w
        .place(Some(&v.metro), v.facility.as_deref())
        .map_err(|e| e.messages.join("; "))?;
    if metro != v.metro || facility != v.facility {
        return Err("its facility is not in its metro".to_string());
    }
    if !VXLAN_RANGE.contains(&v.vxlan) {
        return Err(format!(
            "vxlan {} is outside {} to {}",
            v.vxlan,
            VXLAN_RANGE.start(),
            VXLAN_RANGE.end()
        ));
    }
    if w.vxlan_taken(v.project, &v.metro, v.vxlan) {
        return Err(format!(
            "vxlan {} is taken in metro {} by another VLAN of the project",
            v.vxlan, v.metro
        ));
    }
    if w.vlans.count_of_project(Some(v.project)) >= MAX_VLANS_PER_PROJECT {
        return Err(format!(
            "the project holds more than {MAX_VLANS_PER_PROJECT} VLANs"
        ));
    }
    refuse([
        bad_tags(&v.tags),
        v.description
            .as_deref()
            .and_then(|d| too_long("Description", d, MAX_TEXT)),
    ])
    .map_err(|e| e.messages.join("; "))
}

impl World {
    /// Whether `project` has a VLAN numbered `vxlan` in `metro`.
    fn vxlan_taken(&self, project: Uuid, metro: &str, vxlan: u32) -> bool {
        // The project's VLANs alone (a VLAN's scope is its project).
        self.vlans
            .of_project(Some(project))
            .any(|k| k.rec.metro == metro && k.rec.vxlan == vxlan)
    }

    /// The lowest free `vxlan` of `project` in `metro`: from 1000 up,
    /// then below 1000; `None` when every number is taken.
    fn next_vxlan(&self, project: Uuid, metro: &str) -> Option<u32> {
        (FIRST_AUTO_VXLAN..=*VXLAN_RANGE.end())
            .chain(*VXLAN_RANGE.start()..FIRST_AUTO_VXLAN)
            .find(|n| !self.vxlan_taken(project, metro, *n))
    }

    /// `createVirtualNetwork`: a new VLAN of `project`'s.
    pub(crate) fn create_vlan(
        &mut self,
        project: Uuid,
        body: &types::VirtualNetworkCreateInput,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        self.projects
            .get(&project)
            .ok_or_else(ApiError::not_found)?;
        let given = |t: &Option<String>| t.clone().filter(|t| !t.is_empty());
        let (metro, facility) = self.place(
            given(&body.metro).as_deref(),
            given(&body.facility).as_deref(),
        )?;
        refuse([
            bad_tags(&body.tags),
            body.description
                .as_deref()
                .and_then(|d| too_long("Description", d, MAX_TEXT)),
        ])?;
        let held = self.vlans.count_of_project(Some(project));
        if held >= MAX_VLANS_PER_PROJECT {
            return Err(ApiError::unprocessable(format!(
                "The project has too many virtual networks (maximum is {MAX_VLANS_PER_PROJECT})"
            )));
        }
        let vxlan = match body.vxlan {
            Some(_) if facility.is_some() => {
                return Err(ApiError::unprocessable(
                    "A vxlan can be given only for a VLAN in a metro",
                ))
            }
            Some(n) => {
                let n = u32::try_from(n)
                    .ok()
                    .filter(|n| VXLAN_RANGE.contains(n))
                    .ok_or_else(|| {
                        ApiError::unprocessable(format!(
                            "Vxlan must be between {} and {}",
                            VXLAN_RANGE.start(),
                            VXLAN_RANGE.end()
                        ))
                    })?;
                if self.vxlan_taken(project, &metro, n) {
                    return Err(ApiError::unprocessable(format!(
                        "A virtual network with vxlan {n} already exists in metro {metro}"
                    )));
                }
                n
            }
            None => self.next_vxlan(project, &metro).ok_or_else(|| {
                ApiError::unprocessable(format!("No vxlan is free in metro {metro}"))
            })?,
        };
        let id = Uuid::new_v4();
        self.vlans
            .rows()
            .insert(&mut self.journal, id, now, |meta| Kept {
                rec: VirtualNetwork {
                    id,
                    project,
                    metro,
                    facility,
                    vxlan,
                    description: body.description.clone(),
                    tags: body.tags.clone(),
                },
                meta,
            });
        Ok(id)
    }

    /// `updateVirtualNetwork`: the description and tags given (a field
    /// left out is left alone; `"tags": []` clears them).
    pub(crate) fn update_vlan(
        &mut self,
        id: Uuid,
        body: &types::VirtualNetworkUpdateInput,
        now: Instant,
    ) -> Result<(), ApiError> {
        refuse([
            body.tags.as_deref().and_then(bad_tags),
            body.description
                .as_deref()
                .and_then(|d| too_long("Description", d, MAX_TEXT)),
        ])?;
        self.vlans
            .rows()
            .update(&mut self.journal, id, "fields", now, |v| {
                if let Some(d) = &body.description {
                    v.rec.description = Some(d.clone());
                }
                if let Some(t) = &body.tags {
                    v.rec.tags = t.clone();
                }
            })
            .ok_or_else(ApiError::not_found)
    }

    /// `deleteVirtualNetwork`: refused while a port is on it
    /// (model::relations).
    pub(crate) fn delete_vlan(&mut self, id: Uuid, now: Instant) -> Result<(), ApiError> {
        self.delete_record(Kind::VirtualNetwork, id, now)
    }

    /// The VLAN `id`, `404` when there is none.
    pub(crate) fn vlan(&self, id: Uuid) -> Result<&Kept, ApiError> {
        self.vlans.get(&id).ok_or_else(ApiError::not_found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_vxlan_starts_at_1000_and_skips_taken_ones() {
        let mut w = World::for_tests();
        let p = Uuid::new_v4();
        assert_eq!(w.next_vxlan(p, "da"), Some(1000));
        for (n, vxlan) in [1000u32, 1001, 1003].into_iter().enumerate() {
            let id = Uuid::from_u128(n as u128 + 1);
            w.vlans
                .rows()
                .insert(&mut w.journal, id, Instant::now(), |meta| Kept {
                    rec: VirtualNetwork {
                        id,
                        project: p,
                        metro: "da".into(),
                        facility: None,
                        vxlan,
                        description: None,
                        tags: Vec::new(),
                    },
                    meta,
                });
        }
        assert_eq!(w.next_vxlan(p, "da"), Some(1002));
        // Another metro, another project: their own numbers.
        assert_eq!(w.next_vxlan(p, "sv"), Some(1000));
        assert_eq!(w.next_vxlan(Uuid::new_v4(), "da"), Some(1000));
    }
}
