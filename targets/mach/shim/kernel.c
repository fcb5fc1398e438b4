/*
 * The GNU Mach image: QEMU loads the whole ELF64 file as module 0; the shim
 * copies its PT_LOAD segments to their physical addresses (p_paddr) and looks
 * symbols up in its .symtab for the reservation hook.
 */
#include "shim.h"

static const Elf64_Phdr *phdrs(const struct kimage *k)
{
	return (const Elf64_Phdr *)((const char *)k->eh + (uint32_t)k->eh->e_phoff);
}

static const Elf64_Shdr *shdrs(const struct kimage *k)
{
	return (const Elf64_Shdr *)((const char *)k->eh + (uint32_t)k->eh->e_shoff);
}

void kimage_check(struct kimage *k, uint32_t start, uint32_t end)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)start;

	k->eh = eh;
	k->size = end - start;
	if (k->size < sizeof *eh || *(const uint32_t *)eh->e_ident != ELF_MAGIC)
		die("module 0 is not an ELF file (expected the GNU Mach kernel)");
	if (eh->e_ident[4] != ELFCLASS64 || eh->e_machine != EM_X86_64)
		die("module 0 is not an x86_64 ELF64 kernel");
	if (eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > k->size)
		die("kernel program headers lie outside the file");
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = &phdrs(k)[i];
		if (ph->p_type != PT_LOAD)
			continue;
		if (ph->p_offset + ph->p_filesz > k->size || ph->p_filesz > ph->p_memsz)
			die("kernel PT_LOAD segment lies outside the file");
		if (ph->p_paddr + ph->p_memsz > 0xffffffffull)
			die("kernel PT_LOAD segment above 4 GiB");
	}
}

int kimage_overlaps(const struct kimage *k, uint64_t start, uint64_t end)
{
	for (int i = 0; i < k->eh->e_phnum; i++) {
		const Elf64_Phdr *ph = &phdrs(k)[i];
		if (ph->p_type == PT_LOAD && start < ph->p_paddr + ph->p_memsz &&
		    ph->p_paddr < end)
			return 1;
	}
	return 0;
}

void kimage_load(const struct kimage *k)
{
	for (int i = 0; i < k->eh->e_phnum; i++) {
		const Elf64_Phdr *ph = &phdrs(k)[i];
		char *dst = (char *)(uint32_t)ph->p_paddr;
		if (ph->p_type != PT_LOAD)
			continue;
		memcpy(dst, (const char *)k->eh + (uint32_t)ph->p_offset, (uint32_t)ph->p_filesz);
		memset(dst + ph->p_filesz, 0, (uint32_t)(ph->p_memsz - ph->p_filesz));
	}
}

/* Where the loaded kernel's virtual address va lives, through its PT_LOADs. */
void *kimage_va_to_ptr(const struct kimage *k, uint64_t va)
{
	for (int i = 0; i < k->eh->e_phnum; i++) {
		const Elf64_Phdr *ph = &phdrs(k)[i];
		if (ph->p_type == PT_LOAD && va >= ph->p_vaddr && va < ph->p_vaddr + ph->p_memsz)
			return (void *)(uint32_t)(va - ph->p_vaddr + ph->p_paddr);
	}
	return 0;
}

/* Value of the global symbol `name`, 0 when the image has none. */
uint64_t kimage_lookup(const struct kimage *k, const char *name)
{
	const Elf64_Ehdr *eh = k->eh;
	uint32_t n = strlen(name) + 1;

	if (!eh->e_shoff || eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > k->size)
		return 0;
	for (int i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *sh = &shdrs(k)[i], *strsh;
		if (sh->sh_type != SHT_SYMTAB || sh->sh_link >= eh->e_shnum)
			continue;
		strsh = &shdrs(k)[sh->sh_link];
		if (sh->sh_offset + sh->sh_size > k->size || strsh->sh_offset + strsh->sh_size > k->size)
			return 0;
		const Elf64_Sym *sym = (const Elf64_Sym *)((const char *)eh + (uint32_t)sh->sh_offset);
		const char *str = (const char *)eh + (uint32_t)strsh->sh_offset;
		uint32_t count = (uint32_t)(sh->sh_size / sizeof *sym);
		for (uint32_t s = 0; s < count; s++)
			if (sym[s].st_name < strsh->sh_size && sym[s].st_value &&
			    strneq(str + sym[s].st_name, name, n))
				return sym[s].st_value;
	}
	return 0;
}
