;; SIMD kernels of SimpleVectorDb. Rows are `stride` floats long (stride is a multiple of 4,
;; padded with zeros), 16-byte aligned, stored back to back. Regenerate the embedded binary
;; with `pnpm --filter @km/core gen:wasm` after editing this file.
(module
  (import "env" "memory" (memory 1))

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

  ;; out[r] = dot(query, row r) for the $n rows starting at $rows.
  (func (export "dots") (param $q i32) (param $rows i32) (param $n i32) (param $stride i32) (param $out i32)
    (local $r i32) (local $rowBytes i32)
    (local.set $rowBytes (i32.shl (local.get $stride) (i32.const 2)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $r) (local.get $n)))
        (f32.store (local.get $out) (call $dot (local.get $q) (local.get $rows) (local.get $stride)))
        (local.set $rows (i32.add (local.get $rows) (local.get $rowBytes)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $next))))

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
