//! The rules of self-service reservations: what a create may ask (items
//! of a catalog plan in a metro where it is offered, by ID; a period of
//! 12 or 36 months), its price, and the hardware reservations it makes
//! (one a server, provisionable, in the item's metro and plan).

use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Kept, Period, ReservationItem, SelfServiceReservation};
use crate::call::ApiError;
use crate::model::bounds::{room_for, too_long, MAX_NAME, MAX_TEXT};
use crate::model::World;

/// The most items one reservation holds.
pub(crate) const MAX_ITEMS: usize = 100;

/// The most servers one item orders.
pub(crate) const MAX_QUANTITY: u32 = 100;

/// The hours of a month a reservation's price counts.
pub(crate) const HOURS_A_MONTH: f64 = 730.0;

/// A period the API takes: 12 or 36, `monthly` (the spec's known values).
pub(crate) fn check_period(count: i64, unit: &str) -> Result<(), ApiError> {
    if ![12, 36].contains(&count) || unit != "monthly" {
        return Err(ApiError::unprocessable(
            "period must be 12 or 36 monthly units",
        ));
    }
    Ok(())
}

impl World {
    /// An item's monthly amount: its plan's on-demand hourly price in its
    /// metro, for [`HOURS_A_MONTH`] hours, times its quantity (0 where the
    /// plan has no price).
    pub(crate) fn item_amount(&self, i: &ReservationItem) -> f64 {
        let hour = self.on_demand_price(&i.plan, &i.metro).unwrap_or_default();
        (hour * HOURS_A_MONTH * f64::from(i.quantity) * 100.0).round() / 100.0
    }

    /// A reservation's total cost over its period, in whole dollars.
    pub(crate) fn reservation_total(&self, r: &SelfServiceReservation) -> i64 {
        let monthly: f64 = r.items.iter().map(|i| self.item_amount(i)).sum();
        (monthly * f64::from(r.period.count)).round() as i64
    }

    /// `createSelfServiceReservation`: each item names a plan and a metro
    /// of the catalog by ID (or slug and code), where the plan is
    /// offered, and a quantity; the period is 12 or 36 months. Every
    /// problem is refused with `422`, before anything is made. Each item
    /// makes `quantity` provisionable hardware reservations of the project
    /// for its plan, in the first facility of its metro, so devices can be
    /// placed on them.
    pub(crate) fn create_self_service_reservation(
        &mut self,
        project: Uuid,
        body: &types::CreateSelfServiceReservationRequest,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        if !self.projects.contains_key(&project) {
            return Err(ApiError::not_found());
        }
        if body.item.is_empty() || body.item.len() > MAX_ITEMS {
            return Err(ApiError::unprocessable(format!(
                "item must hold 1 to {MAX_ITEMS} items"
            )));
        }
        let period = body
            .period
            .as_ref()
            .ok_or_else(|| ApiError::unprocessable("period is required"))?;
        let (count, unit) = (
            period.count.unwrap_or_default(),
            period.unit.as_deref().unwrap_or_default(),
        );
        check_period(count, unit)?;
        let mut problems: Vec<String> = body
            .notes
            .as_deref()
            .and_then(|n| too_long("notes", n, MAX_TEXT))
            .into_iter()
            .collect();
        let mut items = Vec::with_capacity(body.item.len());
        for (n, i) in body.item.iter().enumerate() {
            let plan = i.plan_id.and_then(|id| {
                self.catalog
                    .plans
                    .iter()
                    .find(|p| p.id == Some(id))
                    .map(|p| p.slug.clone())
            });
            let metro = i.metro_id.and_then(|id| {
                self.catalog
                    .metros
                    .iter()
                    .find(|m| m.id == Some(id))
                    .map(|m| m.code.clone())
            });
            let quantity = i.quantity.unwrap_or(1);
            match (plan, metro) {
                (None, _) => problems.push(format!("item[{n}]: plan_id is not a valid plan")),
                (_, None) => problems.push(format!("item[{n}]: metro_id is not a valid metro")),
                (Some(plan), Some(metro)) => {
                    if self.on_demand_price(&plan, &metro).is_none() {
                        problems.push(format!(
                            "item[{n}]: plan {plan} is not offered in metro {metro}"
                        ));
                    }
                    if quantity < 1 || quantity > i64::from(MAX_QUANTITY) {
                        problems.push(format!("item[{n}]: quantity must be 1 to {MAX_QUANTITY}"));
                    }
                    problems.extend(
                        i.term
                            .as_deref()
                            .and_then(|t| too_long("term", t, MAX_NAME)),
                    );
                    items.push(ReservationItem {
                        id: Uuid::new_v4(),
                        plan,
                        metro,
                        quantity: quantity.clamp(1, i64::from(MAX_QUANTITY)) as u32,
                        term: i.term.clone(),
                    });
                }
            }
        }
        if !problems.is_empty() {
            return Err(ApiError {
                status: 422,
                messages: problems,
            });
        }
        // Each item's servers go in the first facility of its metro (every
        // item is in `items` now, in the body's order).
        let mut places = Vec::with_capacity(items.len());
        for (n, i) in items.iter().enumerate() {
            match self.catalog.facilities.iter().find(|f| f.metro == i.metro) {
                Some(f) => places.push(f.code.clone()),
                None => problems.push(format!(
                    "item[{n}]: metro {} has no facility for the servers",
                    i.metro
                )),
            }
        }
        if !problems.is_empty() {
            return Err(ApiError {
                status: 422,
                messages: problems,
            });
        }
        room_for(
            "Self-service reservations",
            self.self_service_reservations.len(),
        )?;
        let servers: usize = items.iter().map(|i| i.quantity as usize).sum();
        room_for(
            "Hardware reservations",
            (self.reservations.len() + servers).saturating_sub(1),
        )?;
        let id = Uuid::new_v4();
        let rec = SelfServiceReservation {
            id,
            project,
            items,
            period: Period {
                count: count as u32,
                unit: unit.to_string(),
            },
            start_date: body.start_date,
            notes: body.notes.clone(),
        };
        // The hardware it orders: one provisionable reservation a server,
        // in the project, of the item's plan, in its metro.
        for (i, facility) in rec.items.iter().zip(&places) {
            for _ in 0..i.quantity {
                self.add_reservation(project, &i.plan, facility, now);
            }
        }
        self.self_service_reservations
            .rows()
            .insert(&mut self.journal, id, now, |meta| Kept { rec, meta });
        Ok(id)
    }

    /// Removes one self-service reservation (for a cascade), journaled.
    pub(crate) fn remove_self_service_reservation(&mut self, id: Uuid, at: Instant) {
        self.self_service_reservations
            .rows()
            .remove(&mut self.journal, id, at);
    }
}
