//! Depth-first search over the small directed graphs of a program (locals
//! that read each other, modules that import each other).

/// Walks a graph of `n` nodes depth first, iteratively (a long chain cannot
/// overflow the stack). `edge(node, i)` is the target of `node`'s `i`-th
/// edge, `None` past the last one. `on_cycle(path, node, i)` is called for
/// every edge `i` of `node` that closes a cycle: `path` lists the nodes on
/// the stack from the edge's target to `node`. Returns the nodes in
/// post-order: each after every node it reaches (except through cycles).
pub(crate) fn depth_first(
    n: usize,
    edge: impl Fn(usize, usize) -> Option<usize>,
    mut on_cycle: impl FnMut(&[usize], usize, usize),
) -> Vec<usize> {
    // 0 new, 1 on the stack, 2 done.
    let mut state = vec![0u8; n];
    let mut order = Vec::with_capacity(n);
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut path: Vec<usize> = Vec::new();
    for start in 0..n {
        if state[start] != 0 {
            continue;
        }
        stack.push((start, 0));
        path.push(start);
        state[start] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            let i = *next;
            match edge(node, i) {
                Some(dep) => {
                    *next += 1;
                    match state[dep] {
                        0 => {
                            state[dep] = 1;
                            stack.push((dep, 0));
                            path.push(dep);
                        }
                        1 => {
                            let pos = path.iter().position(|x| *x == dep).unwrap_or(0);
                            on_cycle(&path[pos..], node, i);
                        }
                        _ => {}
                    }
                }
                None => {
                    state[node] = 2;
                    order.push(node);
                    stack.pop();
                    path.pop();
                }
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::depth_first;

    #[test]
    fn post_order_and_cycles() {
        // 0 -> 1 -> 2 -> 1 (cycle), 3 alone.
        let edges: Vec<Vec<usize>> = vec![vec![1], vec![2], vec![1], vec![]];
        let mut cycles = Vec::new();
        let order = depth_first(
            edges.len(),
            |n, i| edges[n].get(i).copied(),
            |path, node, i| cycles.push((path.to_vec(), node, i)),
        );
        assert_eq!(order, [2, 1, 0, 3]);
        assert_eq!(cycles, [(vec![1, 2], 2, 0)]);
    }
}
