[foobar]
[world] [world] [ell]
3 6 6 -1
[c] [/a/b] [.]
[/a/b/d] [..]
[-9223372036854775808] [MIXED] [mixed]
[a] [b]
[stack] [ystack]
8 -42

