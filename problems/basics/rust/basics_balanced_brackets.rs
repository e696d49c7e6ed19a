fn balanced_brackets(expression: String) -> bool {
    let mut stack = Vec::new();
    for ch in expression.chars() {
        match ch {
            '(' | '[' | '{' => stack.push(ch),
            ')' | ']' | '}' => {
                let open = match ch { ')' => '(', ']' => '[', _ => '{' };
                if stack.pop() != Some(open) {
                    return false;
                }
            }
            _ => {}
        }
    }
    stack.is_empty()
}
