/*
 * A member of an anonymous struct/union member is at the anonymous
 * member's offset plus its own (GNU Mach's struct thread: the state
 * bit-field and event_key share a union at offset 48; they read as
 * offset 0, i.e. thread->links, before the fix).
 */
#pragma D option quiet

struct s {
	long a;
	long b;
	union {
		struct {
			unsigned int st : 16;
			unsigned int wa : 1;
		};
		long ev;
	};
	int after;
};

BEGIN
{
	printf("%d %d %d\n", offsetof(struct s, ev), offsetof(struct s, a),
	    offsetof(struct s, after));
	this->p = (struct s *)alloca(sizeof(struct s));
	this->p->a = 7;
	this->p->ev = 0x10004;
	printf("%d %d %d\n", this->p->st, this->p->wa, this->p->a);
	exit(0);
}
