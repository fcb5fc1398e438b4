-- @@stderr --
dtrace: failed to compile script tests/d/qa/err.D_PRAGMA_MALFORM.option-two-words.d: [D_PRAGMA_MALFORM] line 2: superfluous arguments specified for #pragma option
