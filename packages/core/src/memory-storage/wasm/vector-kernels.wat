;; SIMD kernels of SimpleVectorDb. Rows are `stride` floats long (stride is a multiple of 4,
;; padded with zeros), 16-byte aligned, stored back to back. Regenerate the embedded binary
;; with `pnpm --filter @km/core gen:wasm` after editing this file.
(module
  (import "env" "memory" (memory 1 65536 shared))

  ;; Dot product of the query at $q with the row at $p, both $stride floats long.
  (func $dot (export "dot") (param $q i32) (param $p i32) (param $stride i32) (result f32)
    (local $end i32) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $stride) (i32.const 2))))
    ;; 16 floats per iteration, four independent accumulators
    (block $u_done
      (loop $u
        (br_if $u_done (i32.gt_u (i32.add (local.get $p) (i32.const 64)) (local.get $end)))
        (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (local.get $p)) (v128.load (local.get $q)))))
        (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load offset=16 (local.get $p)) (v128.load offset=16 (local.get $q)))))
        (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load offset=32 (local.get $p)) (v128.load offset=32 (local.get $q)))))
        (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load offset=48 (local.get $p)) (v128.load offset=48 (local.get $q)))))
        (local.set $p (i32.add (local.get $p) (i32.const 64)))
        (local.set $q (i32.add (local.get $q) (i32.const 64)))
        (br $u)))
    ;; remaining groups of 4 floats
    (block $t_done
      (loop $t
        (br_if $t_done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (local.get $p)) (v128.load (local.get $q)))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (local.set $q (i32.add (local.get $q) (i32.const 16)))
        (br $t)))
    (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3))))
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
      (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))

  ;; out[r] = dot(query, row r) for the $n rows starting at $rows. Rows are scored four at a
  ;; time so each query load serves four rows; the last $n % 4 rows go through $dot.
  (func (export "dots") (param $q i32) (param $rows i32) (param $n i32) (param $stride i32) (param $out i32)
    (local $r i32) (local $rowBytes i32) (local $k i32) (local $qv v128)
    (local $p0 i32) (local $p1 i32) (local $p2 i32) (local $p3 i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $b0 v128) (local $b1 v128) (local $b2 v128) (local $b3 v128) (local $qw v128)
    (local $x0 i32) (local $x1 i32) (local $x2 i32) (local $x3 i32) (local $xq i32)
    (local.set $rowBytes (i32.shl (local.get $stride) (i32.const 2)))
    (block $blocks_done
      (loop $block
        (br_if $blocks_done (i32.gt_u (i32.add (local.get $r) (i32.const 4)) (local.get $n)))
        (local.set $p0 (local.get $rows))
        (local.set $p1 (i32.add (local.get $p0) (local.get $rowBytes)))
        (local.set $p2 (i32.add (local.get $p1) (local.get $rowBytes)))
        (local.set $p3 (i32.add (local.get $p2) (local.get $rowBytes)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $b0 (v128.const i32x4 0 0 0 0))
        (local.set $b1 (v128.const i32x4 0 0 0 0))
        (local.set $b2 (v128.const i32x4 0 0 0 0))
        (local.set $b3 (v128.const i32x4 0 0 0 0))
        (local.set $k (i32.const 0))
        ;; 8 floats of each row per iteration (two loads each, constant offsets)
        (block $k_done
          (loop $kloop
            (br_if $k_done (i32.gt_u (i32.add (local.get $k) (i32.const 32)) (local.get $rowBytes)))
            (local.set $x0 (i32.add (local.get $p0) (local.get $k)))
            (local.set $x1 (i32.add (local.get $p1) (local.get $k)))
            (local.set $x2 (i32.add (local.get $p2) (local.get $k)))
            (local.set $x3 (i32.add (local.get $p3) (local.get $k)))
            (local.set $xq (i32.add (local.get $q) (local.get $k)))
            (local.set $qv (v128.load (local.get $xq)))
            (local.set $qw (v128.load offset=16 (local.get $xq)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (local.get $x0)) (local.get $qv))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load (local.get $x1)) (local.get $qv))))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load (local.get $x2)) (local.get $qv))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load (local.get $x3)) (local.get $qv))))
            (local.set $b0 (f32x4.add (local.get $b0) (f32x4.mul (v128.load offset=16 (local.get $x0)) (local.get $qw))))
            (local.set $b1 (f32x4.add (local.get $b1) (f32x4.mul (v128.load offset=16 (local.get $x1)) (local.get $qw))))
            (local.set $b2 (f32x4.add (local.get $b2) (f32x4.mul (v128.load offset=16 (local.get $x2)) (local.get $qw))))
            (local.set $b3 (f32x4.add (local.get $b3) (f32x4.mul (v128.load offset=16 (local.get $x3)) (local.get $qw))))
            (local.set $k (i32.add (local.get $k) (i32.const 32)))
            (br $kloop)))
        ;; a last group of 4 floats when the stride is not a multiple of 8
        (if (i32.lt_u (local.get $k) (local.get $rowBytes))
          (then
            (local.set $qv (v128.load (i32.add (local.get $q) (local.get $k))))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (i32.add (local.get $p0) (local.get $k))) (local.get $qv))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load (i32.add (local.get $p1) (local.get $k))) (local.get $qv))))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load (i32.add (local.get $p2) (local.get $k))) (local.get $qv))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load (i32.add (local.get $p3) (local.get $k))) (local.get $qv))))))
        (local.set $a0 (f32x4.add (local.get $a0) (local.get $b0)))
        (local.set $a1 (f32x4.add (local.get $a1) (local.get $b1)))
        (local.set $a2 (f32x4.add (local.get $a2) (local.get $b2)))
        (local.set $a3 (f32x4.add (local.get $a3) (local.get $b3)))
        (f32.store (local.get $out) (call $hsum (local.get $a0)))
        (f32.store offset=4 (local.get $out) (call $hsum (local.get $a1)))
        (f32.store offset=8 (local.get $out) (call $hsum (local.get $a2)))
        (f32.store offset=12 (local.get $out) (call $hsum (local.get $a3)))
        (local.set $rows (i32.add (local.get $p3) (local.get $rowBytes)))
        (local.set $out (i32.add (local.get $out) (i32.const 16)))
        (local.set $r (i32.add (local.get $r) (i32.const 4)))
        (br $block)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $r) (local.get $n)))
        (f32.store (local.get $out) (call $dot (local.get $q) (local.get $rows) (local.get $stride)))
        (local.set $rows (i32.add (local.get $rows) (local.get $rowBytes)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $next))))

  ;; Sum of the four lanes of a vector.
  (func $hsum (param $v v128) (result f32)
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
      (f32.add (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))

  ;; Sum of $n floats starting at $p ($n a multiple of 16): reads memory once, the
  ;; bandwidth floor the benchmark compares search against.
  (func (export "sum") (param $p i32) (param $n i32) (result f32)
    (local $end i32) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $u
        (br_if $done (i32.gt_u (i32.add (local.get $p) (i32.const 64)) (local.get $end)))
        (local.set $a0 (f32x4.add (local.get $a0) (v128.load (local.get $p))))
        (local.set $a1 (f32x4.add (local.get $a1) (v128.load offset=16 (local.get $p))))
        (local.set $a2 (f32x4.add (local.get $a2) (v128.load offset=32 (local.get $p))))
        (local.set $a3 (f32x4.add (local.get $a3) (v128.load offset=48 (local.get $p))))
        (local.set $p (i32.add (local.get $p) (i32.const 64)))
        (br $u)))
    (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1)) (f32x4.add (local.get $a2) (local.get $a3))))
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
      (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0)))))
)
