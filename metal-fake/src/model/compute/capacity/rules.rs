//! The rules of capacity: which pool an on-demand create takes a machine
//! from (and where the device goes), giving it back when the device is
//! gone, and a capacity check.

use crate::model::journal::Touched;
use uuid::Uuid;

use super::record::Capacity;
use crate::call::ApiError;
use crate::model::device::FAILED_PROVISIONING_PROJECT;
use crate::model::World;

/// The real API's refusal of an on-demand create in a metro without a free
/// machine of the plan (packngo PR 246's log).
pub(crate) const NO_SERVERS_IN_METRO: &str = "There aren't available servers in that metro";

/// The real API's refusal of an on-demand create when none of the
/// facilities asked for has a free machine of the plan (packngo issue 121).
pub(crate) const NO_FACILITY: &str = "Facility can't be blank";

/// The free machines of one plan, by metro code and by facility code (see
/// [`World::free_machines`]).
#[derive(Debug, Default)]
pub(crate) struct Free<'a> {
    pub(crate) metros: std::collections::HashMap<&'a str, u64>,
    pub(crate) facilities: std::collections::HashMap<&'a str, u64>,
}

/// Where an on-demand create asks for a machine, as the request says it.
pub(crate) enum Place<'a> {
    /// A metro, by code or ID.
    Metro(&'a str),
    /// Facilities, each by code or ID, or `any`, in order of preference.
    Facilities(&'a [String]),
}

impl World {
    /// The catalog code of the metro `text` names (a code, ASCII case
    /// ignored, or an ID).
    fn metro_code(&self, text: &str) -> Option<&str> {
        self.catalog
            .metros
            .iter()
            .find(|m| {
                m.code.eq_ignore_ascii_case(text) || m.id.is_some_and(|id| id.to_string() == text)
            })
            .map(|m| m.code.as_str())
    }

    /// The catalog code of the facility `text` names (a code, ASCII case
    /// ignored, or an ID).
    fn facility_code(&self, text: &str) -> Option<&str> {
        self.catalog
            .facilities
            .iter()
            .find(|f| {
                f.code.eq_ignore_ascii_case(text) || f.id.is_some_and(|id| id.to_string() == text)
            })
            .map(|f| f.code.as_str())
    }

    /// The metro code of the facility with this code.
    fn metro_of(&self, facility: &str) -> Option<&str> {
        self.catalog.facility(facility).map(|f| f.metro.as_str())
    }

    /// The facility a metro's own pools place their devices in: the
    /// metro's first facility in the catalog's order.
    pub(crate) fn placement(&self, metro: &str) -> Option<&str> {
        self.catalog
            .facilities
            .iter()
            .find(|f| f.metro == metro)
            .map(|f| f.code.as_str())
    }

    /// Where machines of `plan` (a slug of the catalog) can be had now:
    /// the free machines of each metro (its own pools' and its
    /// facilities'), and of each facility (its metro's: a metro's
    /// facilities share its capacity), counting only pools that can give
    /// one. The one table `/plans` (`available_in`,
    /// `available_in_metros`), the capacity lists and checks and the
    /// on-demand create read.
    pub(crate) fn free_machines(&self, plan: &str) -> Free<'_> {
        let mut free = Free::default();
        for c in self
            .capacity
            .pools
            .iter()
            .filter(|c| c.plan == plan && c.has(1))
        {
            let n = u64::from(c.available);
            if let Some(m) = self.pool_metro(c) {
                *free.metros.entry(m).or_default() += n;
            }
        }
        // A metro's facilities share its capacity.
        for f in &self.catalog.facilities {
            if let Some(n) = free.metros.get(f.metro.as_str()) {
                free.facilities.insert(f.code.as_str(), *n);
            }
        }
        free
    }

    /// The metro of a pool: its own, or its facility's.
    pub(crate) fn pool_metro<'a>(&'a self, c: &'a Capacity) -> Option<&'a str> {
        match (&c.metro, &c.facility) {
            (Some(m), _) => Some(m.as_str()),
            (None, Some(f)) => self.metro_of(f),
            (None, None) => None,
        }
    }

    /// The pool an on-demand create of `plan` (a slug of the catalog) at
    /// `place` takes its machine from, and the facility its device goes
    /// in; or the API's refusal. In a metro: the metro's own pool, then
    /// its facilities' pools, in the document's order. In facilities: each
    /// facility's pool, else any of its metro's, in the order asked
    /// (`any`: every facility's); the device goes in the facility asked. An
    /// unknown metro, or one unknown facility asked alone, is `422` "`X` is
    /// not a valid metro/facility".
    pub(crate) fn find_machine(
        &self,
        plan: &str,
        place: &Place<'_>,
    ) -> Result<(usize, String), ApiError> {
        let pools = &self.capacity.pools;
        let is = |c: &Capacity| c.plan == plan && c.has(1);
        match place {
            Place::Metro(text) => {
                let metro = self.metro_code(text).ok_or_else(|| {
                    ApiError::unprocessable(format!("{text} is not a valid metro"))
                })?;
                let own = pools
                    .iter()
                    .position(|c| is(c) && c.metro.as_deref() == Some(metro))
                    .and_then(|i| Some((i, self.placement(metro)?.to_string())));
                let in_facility = || {
                    pools.iter().enumerate().find_map(|(i, c)| {
                        let f = c.facility.as_deref()?;
                        (is(c) && self.metro_of(f) == Some(metro)).then(|| (i, f.to_string()))
                    })
                };
                own.or_else(in_facility)
                    .ok_or_else(|| ApiError::unprocessable(NO_SERVERS_IN_METRO))
            }
            Place::Facilities(asked) => {
                if let [one] = asked
                    && one != "any"
                    && self.facility_code(one).is_none()
                {
                    return Err(ApiError::unprocessable(format!(
                        "{one} is not a valid facility"
                    )));
                }
                let mut codes: Vec<&str> = Vec::new();
                for text in asked.iter() {
                    if text == "any" {
                        codes.extend(self.catalog.facilities.iter().map(|f| f.code.as_str()));
                    } else if let Some(code) = self.facility_code(text) {
                        codes.push(code);
                    }
                }
                // The facility's own pool, else any of its metro's: a
                // metro's facilities share its capacity, retired ones too.
                codes
                    .into_iter()
                    .find_map(|code| {
                        let metro = self.metro_of(code);
                        pools
                            .iter()
                            .position(|c| is(c) && c.facility.as_deref() == Some(code))
                            .or_else(|| {
                                pools.iter().position(|c| {
                                    is(c) && metro.is_some() && self.pool_metro(c) == metro
                                })
                            })
                            .map(|i| (i, code.to_string()))
                    })
                    .ok_or_else(|| ApiError::unprocessable(NO_FACILITY))
            }
        }
    }

    /// `device` takes a machine from pool `pool` (found by
    /// [`World::find_machine`] under the same lock).
    pub(crate) fn take_machine(&mut self, pool: usize, device: Uuid) {
        if let Some(c) = self.capacity.pools.get_mut(pool) {
            c.available = c.available.saturating_sub(1);
            self.capacity.taken.insert(device, pool);
            self.journal.touch(Touched::Pool(pool));
        }
    }

    /// The on-demand device `id` (of `project`, on `plan` in `facility`)
    /// is gone: its machine goes back to the pool it came from. A device
    /// the world was loaded with goes back to its facility's pool of its
    /// plan, else its metro's; one on a reservation, or moved away after a
    /// failed provisioning, gives nothing back.
    pub(crate) fn give_back_machine(
        &mut self,
        id: Uuid,
        project: Uuid,
        plan: &str,
        facility: &str,
    ) {
        let pool = self.capacity.taken.remove(&id).or_else(|| {
            if project == FAILED_PROVISIONING_PROJECT {
                return None;
            }
            let pools = &self.capacity.pools;
            let metro = self.metro_of(facility);
            pools
                .iter()
                .position(|c| c.plan == plan && c.facility.as_deref() == Some(facility))
                .or_else(|| {
                    pools.iter().position(|c| {
                        c.plan == plan && metro.is_some() && c.metro.as_deref() == metro
                    })
                })
        });
        if let Some((i, c)) = pool.and_then(|i| Some((i, self.capacity.pools.get_mut(i)?))) {
            c.available = c.available.saturating_add(1);
            self.journal.touch(Touched::Pool(i));
        }
    }

    /// Whether `quantity` machines of `plan` (a slug or ID) can be had in
    /// the metro `metro` names (code or ID): its pools that are not
    /// `unavailable` hold as many free. An unknown metro or plan has none.
    pub(crate) fn metro_has(&self, metro: &str, plan: &str, quantity: u64) -> bool {
        let (Some(metro), Some(plan)) = (self.metro_code(metro), self.plan_slug(plan)) else {
            return false;
        };
        let free = self.free_machines(plan);
        free.metros.get(metro).copied().unwrap_or(0) >= quantity.max(1)
    }

    /// Whether `quantity` machines of `plan` (a slug or ID) can be had in
    /// the facility `facility` names (code or ID): its own pools.
    pub(crate) fn facility_has(&self, facility: &str, plan: &str, quantity: u64) -> bool {
        let (Some(facility), Some(plan)) = (self.facility_code(facility), self.plan_slug(plan))
        else {
            return false;
        };
        let free = self.free_machines(plan);
        free.facilities.get(facility).copied().unwrap_or(0) >= quantity.max(1)
    }

    /// The catalog slug of the plan `text` names (a slug or an ID).
    pub(crate) fn plan_slug(&self, text: &str) -> Option<&str> {
        self.catalog
            .plans
            .iter()
            .find(|p| p.slug == text || p.id.is_some_and(|id| id.to_string() == text))
            .map(|p| p.slug.as_str())
    }
}
