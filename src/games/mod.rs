//! Heap games beyond Nim: what a heap's Grundy value needs as the heap
//! streams by (its residue modulo a game's period, the move on a huge heap).

pub mod residue;
