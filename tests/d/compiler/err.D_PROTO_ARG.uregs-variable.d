/* uregs[] takes an integer constant, not a computed index */
BEGIN { trace(uregs[arg0]); }
