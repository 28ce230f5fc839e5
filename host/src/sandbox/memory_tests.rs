use super::*;

const MIB: usize = 1 << 20;
const GUARD: usize = 64 * 1024;

fn memory(creator: &Creator, reservation: usize, minimum: usize) -> Box<dyn LinearMemory> {
    let pages = u32::try_from(minimum / 65536).unwrap();
    creator
        .new_memory(
            MemoryType::new(pages, None),
            minimum,
            None,
            Some(reservation),
            GUARD,
        )
        .unwrap()
}

fn bytes(memory: &mut dyn LinearMemory) -> &mut [u8] {
    // SAFETY: `byte_size` bytes from `as_ptr` are accessible, and the test
    // holds the only reference.
    unsafe { std::slice::from_raw_parts_mut(memory.as_ptr(), memory.byte_size()) }
}

#[test]
fn a_kept_memory_comes_back_all_zero_after_its_owner_wrote_every_byte() {
    let creator = Creator::default();
    // Past KEEP_BYTES too: what is not kept in RAM must come back zero as well.
    let size = KEEP_BYTES + 4 * MIB;
    let mut first = memory(&creator, 64 * MIB, MIB);
    first.grow_to(size).unwrap();
    bytes(&mut *first).fill(0xAB);
    drop(first);
    assert_eq!(creator.0.kept(), 1);

    let mut second = memory(&creator, 64 * MIB, MIB);
    assert_eq!(creator.0.reused(), 1, "the kept memory is handed out again");
    assert_eq!(second.byte_size(), MIB);
    second.grow_to(size).unwrap();
    let seen = bytes(&mut *second);
    assert!(
        seen.iter().all(|b| *b == 0),
        "a byte of the previous owner survived at {:?}",
        seen.iter().position(|b| *b != 0)
    );
}

#[test]
fn a_memory_grows_within_its_reservation_and_no_further() {
    let creator = Creator::default();
    let mut m = memory(&creator, 8 * MIB, MIB);
    assert_eq!(m.byte_capacity(), 8 * MIB);
    let base = m.as_ptr();
    m.grow_to(8 * MIB).unwrap();
    assert_eq!(m.as_ptr(), base, "growth never moves the memory");
    bytes(&mut *m)[8 * MIB - 1] = 7;
    let refused = m.grow_to(8 * MIB + 65536).unwrap_err();
    assert!(refused.to_string().contains("reservation"), "{refused}");
    assert_eq!(m.byte_size(), 8 * MIB, "a refused growth changes nothing");
}

#[test]
fn at_most_max_spares_are_kept_and_other_shapes_get_their_own() {
    let creator = Creator::default();
    let held: Vec<_> = (0..MAX_SPARES + 2)
        .map(|_| memory(&creator, 8 * MIB, MIB))
        .collect();
    drop(held);
    assert_eq!(creator.0.kept(), MAX_SPARES);

    // A different reservation is not served from the kept ones.
    let other = memory(&creator, 16 * MIB, MIB);
    assert_eq!(creator.0.reused(), 0);
    assert_eq!(other.byte_capacity(), 16 * MIB);
    let same = memory(&creator, 8 * MIB, MIB);
    assert_eq!(creator.0.reused(), 1);
    drop((other, same));
}

#[test]
fn a_minimum_past_the_reservation_is_refused_and_the_region_not_lost() {
    let creator = Creator::default();
    let refused = creator
        .new_memory(
            MemoryType::new(512, None),
            32 * MIB,
            None,
            Some(8 * MIB),
            GUARD,
        )
        .err()
        .unwrap();
    assert!(refused.contains("reservation"), "{refused}");
    assert_eq!(creator.0.kept(), 1, "the unused region is kept for later");
}
