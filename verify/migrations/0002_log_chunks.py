import django.db.models.deletion
from django.db import migrations, models

CHUNK_CHARS = 256 * 1024  # as the worker ships its output


def split_logs(apps, schema_editor):
    """Each job's stored log becomes chunks of CHUNK_CHARS characters, with its running totals."""
    Job = apps.get_model("verify", "VerificationJob")
    Chunk = apps.get_model("verify", "VerificationLogChunk")
    for pk in Job.objects.exclude(log="").values_list("pk", flat=True).iterator():
        log = Job.objects.filter(pk=pk).values_list("log", flat=True).get()
        chars = newlines = 0
        for start in range(0, len(log), CHUNK_CHARS):
            text = log[start : start + CHUNK_CHARS]
            Chunk.objects.create(job_id=pk, chars_before=chars, newlines_before=newlines, text=text)
            chars, newlines = chars + len(text), newlines + text.count("\n")
        Job.objects.filter(pk=pk).update(
            log_chars=chars, log_newlines=newlines, log_lines=newlines + (0 if log.endswith("\n") else 1)
        )


def join_logs(apps, schema_editor):
    """Back: each job's chunks joined into its log again."""
    Job = apps.get_model("verify", "VerificationJob")
    Chunk = apps.get_model("verify", "VerificationLogChunk")
    for pk in Chunk.objects.values_list("job_id", flat=True).distinct().order_by().iterator():
        texts = Chunk.objects.filter(job_id=pk).order_by("chars_before").values_list("text", flat=True)
        Job.objects.filter(pk=pk).update(log="".join(texts))


class Migration(migrations.Migration):

    dependencies = [
        ('verify', '0001_verify_jobs'),
    ]

    operations = [
        migrations.AddField(
            model_name='verificationjob',
            name='log_chars',
            field=models.BigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='verificationjob',
            name='log_lines',
            field=models.BigIntegerField(default=0, help_text='Lines of the log, a last unfinished one included'),
        ),
        migrations.AddField(
            model_name='verificationjob',
            name='log_newlines',
            field=models.BigIntegerField(default=0),
        ),
        migrations.CreateModel(
            name='VerificationLogChunk',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('chars_before', models.BigIntegerField()),
                ('newlines_before', models.BigIntegerField()),
                ('text', models.TextField()),
                ('job', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='log_chunks', to='verify.verificationjob')),
            ],
            options={
                'indexes': [models.Index(fields=['job', 'newlines_before'], name='verify_log_chunk_line')],
                'constraints': [models.UniqueConstraint(fields=('job', 'chars_before'), name='verify_log_chunk_order')],
            },
        ),
        migrations.RunPython(split_logs, join_logs),
        migrations.RemoveField(
            model_name='verificationjob',
            name='log',
        ),
    ]
