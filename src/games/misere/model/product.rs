//! The product a candidate lives in: the base times the truncated counts
//! of the coordinate heaps, its elements coded as integers.

use super::{Coordinate, Refused, MAX_PRODUCT};
use crate::games::misere::table::Table;

/// Q_n × C(a_1) × … × C(a_r), its elements coded as q · span + the
/// coordinates' counts in mixed radix (radix a_i + 2).
pub(super) struct Product<'q> {
    pub(super) base: &'q Table,
    pub(super) stems: Vec<u32>,
    pub(super) places: Vec<u32>,
    pub(super) span: u32,
    /// The counts' sums, truncated: `sums[r · span + r']`, for a span of
    /// at most [`SUMS`] (else added digit by digit each time).
    sums: Option<Vec<u32>>,
}

/// The largest span whose sums of counts are made once.
const SUMS: u32 = 1 << 8;

impl<'q> Product<'q> {
    pub(super) fn new(base: &'q Table, coordinates: &[Coordinate]) -> Result<Product<'q>, Refused> {
        let mut places = Vec::with_capacity(coordinates.len());
        let mut span: usize = 1;
        for coordinate in coordinates {
            places.push(span as u32);
            span = span.saturating_mul(coordinate.stem as usize + 2);
        }
        if span.saturating_mul(base.order()) > MAX_PRODUCT {
            return Err(Refused::Candidate);
        }
        let mut product = Product {
            base,
            stems: coordinates.iter().map(|c| c.stem).collect(),
            places,
            span: span as u32,
            sums: None,
        };
        let span = product.span;
        if span <= SUMS {
            let sums = (0..span * span)
                .map(|rr| product.add_counts(rr / span, rr % span))
                .collect();
            product.sums = Some(sums);
        }
        Ok(product)
    }

    pub(super) fn len(&self) -> usize {
        self.base.order() * self.span as usize
    }

    /// The element of Q_n class `q` with one copy of coordinate `at`.
    pub(super) fn code(&self, q: u16, at: Option<usize>) -> u32 {
        u32::from(q) * self.span + at.map_or(0, |i| self.places[i])
    }

    /// The product: classes multiplied in Q_n, counts added and truncated.
    pub(super) fn mul(&self, u: u32, w: u32) -> u32 {
        self.mul_parts(self.parts(u), self.parts(w))
    }

    /// An element's class in Q_n and its coordinates' counts.
    pub(super) fn parts(&self, u: u32) -> (u16, u32) {
        ((u / self.span) as u16, u % self.span)
    }

    /// [`mul`](Self::mul) of two elements given by their [`parts`](Self::parts).
    #[inline(always)]
    pub(super) fn mul_parts(&self, (qu, ru): (u16, u32), (qw, rw): (u16, u32)) -> u32 {
        let q = self.base.mul(qu, qw);
        let counts = match &self.sums {
            Some(sums) => sums[(ru * self.span + rw) as usize],
            None => self.add_counts(ru, rw),
        };
        u32::from(q) * self.span + counts
    }

    /// The coordinates' counts `ru` and `rw` (in mixed radix) added, each
    /// truncated.
    fn add_counts(&self, ru: u32, rw: u32) -> u32 {
        let mut counts = 0;
        for (&stem, &place) in self.stems.iter().zip(&self.places) {
            let radix = stem + 2;
            let mut e = ru / place % radix + rw / place % radix;
            if e >= radix {
                e = stem + (e - stem) % 2;
            }
            counts += e * place;
        }
        counts
    }
}
