/*
 * The whole program is parsed before any clause is cooked (as dtrace's
 * dt_compile): the declaration after the clause makes x an int, so
 * assigning it a string is an operand-type error, not a redeclaration
 * of a string variable the clause created.
 * @@stderr-match: line 9: operands have incompatible types: "int" = "string" */
BEGIN
{
	x = "a";
}

int x;
