//! Where an on-demand create (one without `hardware_reservation_id`) puts
//! its device: the plan, operating system and place it names checked
//! against the catalog as the real API checked them, and a machine found
//! in the capacity of the place ([`crate::model::capacity`]).

use crate::call::ApiError;
use crate::model::capacity::{Place, NO_FACILITY, NO_SERVERS_IN_METRO};
use crate::model::World;

/// Where an on-demand device goes: the capacity pool it takes its machine
/// from, its plan's slug and its facility's code.
pub(super) struct Machine {
    pub(super) pool: usize,
    pub(super) plan: String,
    pub(super) facility: String,
}

impl World {
    /// The machine an on-demand create (a spot instance's when `spot`) of
    /// `plan` (a slug or ID) with `os` (a slug or ID) in `metro`, or else
    /// in `facilities`, takes; or the API's `422`: "`X` is not a valid
    /// plan", "... operating system", "... metro", "... facility", or no
    /// machine free there (see [`World::find_machine`]), which is also the
    /// answer for a plan not sold that way (its `deployment_types` lack
    /// `on_demand`, or `spot_market` for a spot instance).
    pub(super) fn on_demand_machine(
        &self,
        plan: &str,
        os: &str,
        metro: Option<&str>,
        facilities: &[String],
        spot: bool,
    ) -> Result<Machine, ApiError> {
        let slug = self
            .plan_slug(plan)
            .ok_or_else(|| ApiError::unprocessable(format!("{plan} is not a valid plan")))?
            .to_string();
        let os_known = self
            .catalog
            .operating_systems
            .iter()
            .any(|o| o.slug == os || o.id.is_some_and(|id| id.to_string() == os));
        if !os_known {
            return Err(ApiError::unprocessable(format!(
                "{os} is not a valid operating system"
            )));
        }
        let place = match metro {
            Some(m) => Place::Metro(m),
            None => Place::Facilities(facilities),
        };
        let way = if spot { "spot_market" } else { "on_demand" };
        let sold = self
            .catalog
            .plan(&slug)
            .and_then(|p| p.deployment_types.as_ref())
            .is_some_and(|d| d.iter().any(|t| t == way));
        let (pool, facility) = self.find_machine(&slug, &place)?;
        if !sold {
            return Err(ApiError::unprocessable(match place {
                Place::Metro(_) => NO_SERVERS_IN_METRO,
                Place::Facilities(_) => NO_FACILITY,
            }));
        }
        Ok(Machine {
            pool,
            plan: slug,
            facility,
        })
    }
}
