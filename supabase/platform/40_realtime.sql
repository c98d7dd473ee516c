-- Platform stand-in (LOCAL ONLY): the publication hosted Realtime reads. Migrations add the
-- tables whose changes are broadcast (`alter publication supabase_realtime add table ...`).
do $$
begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
end
$$;
